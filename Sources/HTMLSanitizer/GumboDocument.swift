import CGumbo

/// A parse of an HTML string by gumbo (an HTML5-conformant tree builder), owned for the life of the
/// value: the tree is freed when the last reference goes. Nodes are only valid while it lives.
final class GumboDocument {
    private var options: GumboOptions
    private let output: UnsafeMutablePointer<GumboOutput>
    // gumbo keeps pointers into the buffer (original text); it must outlive the tree.
    private let buffer: UnsafeMutableBufferPointer<CChar>

    /// nil when gumbo gives no tree (out of memory).
    init?(_ html: String) {
        var options = kGumboDefaultOptions
        // Parse errors are of no use here; do not let a hostile document grow the list unbounded.
        options.max_errors = 0
        let utf8 = Array(html.utf8)
        let buffer = UnsafeMutableBufferPointer<CChar>.allocate(capacity: utf8.count + 1)
        utf8.withUnsafeBufferPointer { source in
            for index in 0..<source.count { buffer[index] = CChar(bitPattern: source[index]) }
        }
        buffer[utf8.count] = 0
        guard let output = withUnsafePointer(to: &options, { gumbo_parse_with_options($0, buffer.baseAddress, utf8.count) })
        else {
            buffer.deallocate()
            return nil
        }
        self.options = options
        self.output = output
        self.buffer = buffer
    }

    deinit {
        withUnsafePointer(to: &options) { gumbo_destroy_output($0, output) }
        buffer.deallocate()
    }

    var document: GumboNodeRef { GumboNodeRef(pointer: output.pointee.document) }
}

/// A borrowed view of one gumbo node (valid while its `GumboDocument` lives).
struct GumboNodeRef {
    let pointer: UnsafeMutablePointer<GumboNode>

    enum Kind { case document, element, text, cdata, comment, whitespace, template }

    var kind: Kind {
        switch pointer.pointee.type {
        case GUMBO_NODE_DOCUMENT: return .document
        case GUMBO_NODE_ELEMENT: return .element
        case GUMBO_NODE_TEXT: return .text
        case GUMBO_NODE_CDATA: return .cdata
        case GUMBO_NODE_COMMENT: return .comment
        case GUMBO_NODE_WHITESPACE: return .whitespace
        default: return .template
        }
    }

    /// The lower-case tag name gumbo knows, "" for an unknown tag (see `originalTagName`).
    var tagName: String {
        guard kind == .element || kind == .template else { return "" }
        return String(cString: gumbo_normalized_tagname(pointer.pointee.v.element.tag))
    }

    /// The name as written (lower-cased) for a tag gumbo does not know, e.g. `o:p` or `my-widget`.
    var originalTagName: String {
        guard kind == .element || kind == .template else { return "" }
        var piece = pointer.pointee.v.element.original_tag
        guard piece.length > 0, piece.data != nil else { return "" }
        gumbo_tag_from_original_text(&piece)
        let bytes = UnsafeRawBufferPointer(start: piece.data, count: piece.length)
        return String(decoding: bytes, as: UTF8.self).lowercased()
    }

    /// True for elements in the HTML namespace (SVG and MathML elements are false).
    var isHTML: Bool { pointer.pointee.v.element.tag_namespace == GUMBO_NAMESPACE_HTML }

    /// Text of a text, whitespace, CDATA or comment node, entities decoded.
    var text: String {
        guard let text = pointer.pointee.v.text.text else { return "" }
        return String(cString: text)
    }

    var children: [GumboNodeRef] {
        let vector: GumboVector
        switch kind {
        case .document: vector = pointer.pointee.v.document.children
        case .element, .template: vector = pointer.pointee.v.element.children
        default: return []
        }
        return Self.nodes(vector)
    }

    /// (name, value) in source order, names lower-cased and values entity-decoded by gumbo.
    /// gumbo keeps the first of duplicated attributes, as browsers do.
    var attributes: [(name: String, value: String)] {
        guard kind == .element || kind == .template else { return [] }
        let vector = pointer.pointee.v.element.attributes
        var result: [(name: String, value: String)] = []
        result.reserveCapacity(Int(vector.length))
        for index in 0..<Int(vector.length) {
            guard let raw = vector.data[index] else { continue }
            let attribute = raw.assumingMemoryBound(to: GumboAttribute.self).pointee
            let name = attribute.name.map { String(cString: $0) } ?? ""
            let value = attribute.value.map { String(cString: $0) } ?? ""
            // Attributes of foreign elements can carry namespaces (xlink:href); the sanitizer drops
            // foreign elements, so a prefixed name here never matches an allowed one anyway.
            let prefix: String
            switch attribute.attr_namespace {
            case GUMBO_ATTR_NAMESPACE_XLINK: prefix = "xlink:"
            case GUMBO_ATTR_NAMESPACE_XML: prefix = "xml:"
            case GUMBO_ATTR_NAMESPACE_XMLNS: prefix = "xmlns:"
            default: prefix = ""
            }
            result.append((prefix + name, value))
        }
        return result
    }

    private static func nodes(_ vector: GumboVector) -> [GumboNodeRef] {
        var result: [GumboNodeRef] = []
        result.reserveCapacity(Int(vector.length))
        for index in 0..<Int(vector.length) {
            guard let raw = vector.data[index] else { continue }
            result.append(GumboNodeRef(pointer: raw.assumingMemoryBound(to: GumboNode.self)))
        }
        return result
    }
}
