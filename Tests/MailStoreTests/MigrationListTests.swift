@testable import MailStore
import XCTest

/// The migration identifiers a one-shot search checks mail.sqlite for are the migrator's own.
final class MigrationListTests: XCTestCase {
    func testWrittenOutListIsTheMigrators() {
        XCTAssertEqual(MailStore.migrationIdentifiers, MailSchema.migrator().migrations)
    }
}
