
/// A folder an incoming email belongs to, identified by its path within the account.
public struct FolderSpec: Hashable, Sendable {
    public var path: String
    public var name: String
    public var type: FolderType

    public init(path: String, name: String? = nil, type: FolderType? = nil) {
        self.path = path
        self.name = name ?? path
        self.type = type ?? FolderType.guess(fromName: path)
    }
}

/// An email on its way into the store: the message plus its folders and provenance.
public struct IncomingEmail: Sendable {
    /// The message. `id` and `threadId` are assigned by the store.
    public var email: Email
    public var folders: [FolderSpec]
    /// Where it came from (file path, `path@offset`), for error reports and `show`.
    public var sourceRef: String?
    /// Parser defects, one line each.
    public var defects: [String]
    /// What the headers say about the category (nil: not read; the categoriser then reads the source).
    public var categorySignals: CategorySignals?
    /// The rules' decision made as the message was parsed (`email.category` is its category),
    /// stored beside it for the categoriser to take up (`CategorizationInput.provisional`); it
    /// follows from `categorySignals` as they were then: whoever changes them sets this to nil.
    public var provisionalDecision: CategoryDecision?

    public init(email: Email, folders: [FolderSpec], sourceRef: String? = nil, defects: [String] = [],
                categorySignals: CategorySignals? = nil, provisionalDecision: CategoryDecision? = nil) {
        self.categorySignals = categorySignals
        self.provisionalDecision = provisionalDecision
        self.email = email
        self.folders = folders
        self.sourceRef = sourceRef
        self.defects = defects
    }
}

/// What one `ingest` call did.
public struct IngestResult: Sendable {
    /// Newly stored emails, with their assigned ids and thread ids.
    public var inserted: [Email] = []
    /// Emails that were already present (same account and Message-ID).
    public var duplicates = 0
    /// Threads created or changed by this batch.
    public var touchedThreads: Set<Int64> = []
    /// Threads merged away into others by this batch.
    public var mergedThreads: Set<Int64> = []

    public init(inserted: [Email] = [], duplicates: Int = 0, touchedThreads: Set<Int64> = [], mergedThreads: Set<Int64> = []) {
        self.inserted = inserted
        self.duplicates = duplicates
        self.touchedThreads = touchedThreads
        self.mergedThreads = mergedThreads
    }
}
