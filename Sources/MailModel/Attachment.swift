/// Metadata of an attachment. The content stays out of the store.
public struct Attachment: Hashable, Sendable, Codable {
    /// The stored attachment's id (0 before it is stored).
    public var id: Int64
    public var filename: String?
    public var mimeType: String
    public var sizeBytes: Int
    public var contentId: String?
    /// True for `Content-Disposition: inline` parts (inline images and the like).
    public var isInline: Bool

    public init(id: Int64 = 0, filename: String?, mimeType: String, sizeBytes: Int, contentId: String? = nil,
                isInline: Bool = false) {
        self.id = id
        self.filename = filename; self.mimeType = mimeType; self.sizeBytes = sizeBytes
        self.contentId = contentId; self.isInline = isInline
    }
}
