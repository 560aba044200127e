import MailStore
import SearchIndex
import MailModel

/// Indexes every committed import batch (FR-SEARCH-08: in the same batches, no separate pass).
extension SearchIndexManager: ImportBatchObserver {
    public func willBeginImport() throws {
        try beginImport()
    }

    public func didCommit(_ result: IngestResult, store: MailStore) throws {
        try index(result.inserted)
    }

    public func didFinishImport(imported: Int) throws {
        try optimizeAfterImport(imported: imported)
    }

    public func didAbandonImport() {
        abandonImport()
    }
}
