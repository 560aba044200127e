/// What the reader allows for one message, and how `cid:` images reach it.
public struct SanitizeOptions: Sendable {
    /// Keep `<img>` from http(s) hosts (the per-message "Load remote images"). Tracking pixels are
    /// stripped either way, and CSS never loads anything.
    public var allowRemoteImages: Bool
    /// Maps a `cid:` reference (the part after `cid:`, percent-decoded, without angle brackets) to
    /// a local URL such as `/api/emails/12/cid/abc` or a `data:` URL; nil drops the image.
    public var cidURL: @Sendable (String) -> String?

    public init(allowRemoteImages: Bool = false, cidURL: @escaping @Sendable (String) -> String? = { _ in nil }) {
        self.allowRemoteImages = allowRemoteImages
        self.cidURL = cidURL
    }
}

/// A sanitized body fragment and what was taken out of it.
public struct SanitizedHTML: Sendable, Equatable {
    /// Serialised HTML that is safe to insert into a page: only allowlisted elements and
    /// attributes, every text and attribute value escaped, every element closed.
    public var html: String
    /// Remote images replaced by a placeholder (`<span class="ms-remote-image">`).
    public var remoteImagesBlocked: Int
    /// Tracking pixels removed (in both modes).
    public var trackersBlocked: Int
    /// Nothing visible left (no text outside hidden elements, no image, no placeholder): the
    /// caller should show the plain-text body instead.
    public var isEmpty: Bool

    public init(html: String, remoteImagesBlocked: Int, trackersBlocked: Int, isEmpty: Bool) {
        self.html = html
        self.remoteImagesBlocked = remoteImagesBlocked
        self.trackersBlocked = trackersBlocked
        self.isEmpty = isEmpty
    }
}

/// Untrusted email HTML → a safe body fragment (spec 001 §5.4.3), by an allowlist over the tree of
/// an HTML5 parser (gumbo): what the browser will build from the output is what was checked.
///
/// - Elements: allowlisted formatting, structure, tables, links and images are written out;
///   `script`, `style`, `template`, `noscript`, `iframe`/`frame`/`frameset`/`noframes`,
///   `object`/`embed`/`applet`, form controls, `meta`, `link`, `base`, `head`/`title`,
///   audio/video/canvas and every SVG or MathML element are dropped **with their content**; any
///   other element (`html`, `body`, `form`, `label`, unknown tags like `o:p`, …) is unwrapped: its
///   children are sanitized and kept, itself is not. (`form` is unwrapped rather than dropped:
///   generated mail sometimes wraps the whole body in one; its controls go, its text stays.)
///   Comments, CDATA of foreign content and processing instructions never reach the output.
/// - Attributes: a per-name allowlist with value checks (numbers, colours, keywords, free text);
///   no `on*`, `id`, `class`, `name`, `srcset`, `background`, `action`, `formaction`, `xlink:href`.
///   `style` is filtered by `CSSFilter`.
/// - Links: `href` only with http, https or mailto (protocol-relative becomes https), and then
///   `target="_blank" rel="noopener noreferrer"`.
/// - Images: `cid:` through `options.cidURL`; `data:image/(png|gif|jpeg|webp)`; http(s) only with
///   `allowRemoteImages`, else a placeholder; tracking pixels (≤ 1×1 or 0-sized by attribute or
///   CSS, hidden by `display:none`/`visibility:hidden`/`opacity:0` on the image or an ancestor,
///   or a host in `TrackerDomains`) are removed and counted whatever the mode.
public enum HTMLSanitizer {
    /// The class of the element that stands for a blocked remote image.
    public static let placeholderClass = "ms-remote-image"

    /// Elements deeper than this are unwrapped (their text is kept), bounding the output's nesting.
    static let maximumDepth = 256

    public static func sanitize(_ html: String, options: SanitizeOptions = SanitizeOptions()) -> SanitizedHTML {
        guard let document = GumboDocument(html) else {
            return SanitizedHTML(html: "", remoteImagesBlocked: 0, trackersBlocked: 0, isEmpty: true)
        }
        var writer = Writer(options: options)
        withExtendedLifetime(document) { writer.walk(document.document) }
        return SanitizedHTML(
            html: writer.output, remoteImagesBlocked: writer.remoteImagesBlocked,
            trackersBlocked: writer.trackersBlocked, isEmpty: !writer.hasVisibleContent
        )
    }

    static let allowedElements: Set<String> = [
        "a", "abbr", "acronym", "address", "article", "aside", "b", "bdi", "bdo", "big", "blockquote", "br",
        "caption", "center", "cite", "code", "col", "colgroup", "dd", "del", "dfn", "div", "dl", "dt", "em",
        "figcaption", "figure", "font", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "i", "img",
        "ins", "kbd", "li", "main", "mark", "nav", "ol", "p", "pre", "q", "rp", "rt", "ruby", "s", "samp",
        "section", "small", "span", "strike", "strong", "sub", "sup", "table", "tbody", "td", "tfoot", "th",
        "thead", "time", "tr", "tt", "u", "ul", "var", "wbr",
    ]

    static let voidElements: Set<String> = ["br", "hr", "img", "wbr", "col"]

    /// Dropped together with everything inside them.
    static let droppedWithContent: Set<String> = [
        "script", "style", "template", "noscript", "iframe", "frame", "frameset", "noframes", "object", "embed",
        "applet", "param", "input", "button", "select", "textarea", "option", "optgroup", "datalist", "keygen",
        "output", "meta", "link", "base", "head", "title", "audio", "video", "source", "track", "canvas",
        "noembed", "isindex", "area", "dialog", "menuitem", "svg", "math",
    ]

    /// Tags gumbo does not know whose content is not mail text either.
    static let unknownDroppedWithContent: Set<String> = ["xml", "portal", "fencedframe"]

    enum AttributeKind { case length, integer, color, keyword, text, flag }

    /// Attributes kept on any allowlisted element (besides `style`, and `href` on `a`, `src` on `img`).
    static let allowedAttributes: [String: AttributeKind] = [
        "width": .length, "height": .length,
        "border": .integer, "cellpadding": .integer, "cellspacing": .integer, "colspan": .integer,
        "rowspan": .integer, "span": .integer, "start": .integer, "hspace": .integer, "vspace": .integer,
        "size": .integer,
        "bgcolor": .color, "color": .color,
        "align": .keyword, "valign": .keyword, "dir": .keyword, "clear": .keyword, "scope": .keyword,
        "type": .keyword, "lang": .keyword,
        "title": .text, "alt": .text, "summary": .text, "abbr": .text, "face": .text, "datetime": .text,
        "nowrap": .flag, "noshade": .flag, "hidden": .flag, "reversed": .flag,
    ]

    static func isValid(_ value: String, as kind: AttributeKind) -> Bool {
        let scalars = value.unicodeScalars
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) }
        switch kind {
        case .length:
            var body = Substring(value)
            if body.hasSuffix("%") { body = body.dropLast() } else if body.lowercased().hasSuffix("px") { body = body.dropLast(2) }
            return !body.isEmpty && body.count <= 8 && body.unicodeScalars.allSatisfy { isDigit($0) || $0 == "." }
        case .integer:
            var body = Substring(value)
            if body.hasPrefix("+") || body.hasPrefix("-") { body = body.dropFirst() }
            return !body.isEmpty && body.count <= 5 && body.unicodeScalars.allSatisfy(isDigit)
        case .color:
            return !value.isEmpty && scalars.count <= 32 && scalars.allSatisfy { isDigit($0) || isLetter($0) || $0 == "#" }
        case .keyword:
            return !value.isEmpty && scalars.count <= 32 && scalars.allSatisfy { isDigit($0) || isLetter($0) || $0 == "-" }
        case .text:
            return value.utf8.count <= 2_000
        case .flag:
            return true
        }
    }
}

/// The walk over gumbo's tree, iterative (a hostile document can nest arbitrarily deep).
private struct Writer {
    let options: SanitizeOptions
    var output = ""
    var remoteImagesBlocked = 0
    var trackersBlocked = 0
    var hasVisibleContent = false

    init(options: SanitizeOptions) { self.options = options }

    struct Context {
        var hidden = false
        var depth = 0
    }

    enum Step {
        case visit(GumboNodeRef, Context)
        case close(String)
    }

    mutating func walk(_ root: GumboNodeRef) {
        var stack: [Step] = [.visit(root, Context())]
        while let step = stack.popLast() {
            switch step {
            case .close(let name):
                output += "</\(name)>"
            case .visit(let node, let context):
                switch node.kind {
                case .document:
                    push(node.children, context, &stack)
                case .text, .whitespace, .cdata:
                    text(node.text, context)
                case .comment, .template:
                    break
                case .element:
                    element(node, context, &stack)
                }
            }
        }
    }

    private func push(_ children: [GumboNodeRef], _ context: Context, _ stack: inout [Step]) {
        for child in children.reversed() { stack.append(.visit(child, context)) }
    }

    private mutating func text(_ text: String, _ context: Context) {
        guard !text.isEmpty else { return }
        if !context.hidden && !hasVisibleContent && text.unicodeScalars.contains(where: Self.isVisible) {
            hasVisibleContent = true
        }
        output += Escape.text(text)
    }

    static func isVisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.isWhitespace { return false }
        switch scalar.value {
        case 0x00AD, 0x034F, 0x200B...0x200F, 0x2060...0x2064, 0xFEFF: return false
        default: return !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
        }
    }

    private mutating func element(_ node: GumboNodeRef, _ context: Context, _ stack: inout [Step]) {
        guard node.isHTML else { return }  // SVG, MathML: dropped with their content
        let name = node.tagName
        if HTMLSanitizer.droppedWithContent.contains(name) { return }
        if name.isEmpty, HTMLSanitizer.unknownDroppedWithContent.contains(node.originalTagName) { return }

        let attributes = node.attributes
        let css = attributes.first(where: { $0.name == "style" }).map { CSSFilter.filter($0.value) }
        var inner = context
        if css?.hides == true || attributes.contains(where: { $0.name == "hidden" }) { inner.hidden = true }

        if name == "img" {
            image(attributes, css, inner)
            return
        }
        var kept = keptAttributes(attributes, css)
        var tag: String?
        if HTMLSanitizer.allowedElements.contains(name) {
            tag = name
        } else if name == "body" && !kept.isEmpty {
            tag = "div"  // keeps the body's colours and style
        }
        guard let tag, context.depth < HTMLSanitizer.maximumDepth else {
            push(node.children, inner, &stack)
            return
        }
        if tag == "a" {
            if let href = attributes.first(where: { $0.name == "href" }), let url = linkURL(href.value) {
                kept.insert(("href", url), at: 0)
                kept.append(("target", "_blank"))
                kept.append(("rel", "noopener noreferrer"))
            }
        }
        open(tag, kept)
        if HTMLSanitizer.voidElements.contains(tag) { return }
        // The parser drops one newline right after <pre>; keep a text's own leading newline.
        if tag == "pre" { output += "\n" }
        inner.depth += 1
        stack.append(.close(tag))
        push(node.children, inner, &stack)
    }

    private func keptAttributes(_ attributes: [(name: String, value: String)], _ css: CSSFilter.Result?) -> [(String, String?)] {
        var kept: [(String, String?)] = []
        for (name, value) in attributes {
            if name == "style" {
                if let css, !css.css.isEmpty { kept.append(("style", css.css)) }
                continue
            }
            guard let kind = HTMLSanitizer.allowedAttributes[name] else { continue }
            let trimmed = kind == .text ? value : value.trimmingSpaces()
            guard HTMLSanitizer.isValid(trimmed, as: kind) else { continue }
            kept.append((name, kind == .flag ? nil : trimmed))
        }
        return kept
    }

    private func linkURL(_ href: String) -> String? {
        switch URLPolicy.classify(href) {
        case .remote(let url, _), .mailto(let url): return url
        default: return nil
        }
    }

    private mutating func image(_ attributes: [(name: String, value: String)], _ css: CSSFilter.Result?, _ context: Context) {
        guard let source = attributes.first(where: { $0.name == "src" })?.value else { return }
        var kept = keptAttributes(attributes, css)
        switch URLPolicy.classify(source) {
        case .remote(let url, let host):
            if isTrackingPixel(attributes, css, context, host: host) {
                trackersBlocked += 1
                return
            }
            guard options.allowRemoteImages else {
                remoteImagesBlocked += 1
                placeholder(attributes, css, context)
                return
            }
            kept.insert(("src", url), at: 0)
        case .contentID(let reference):
            var reference = reference
            if reference.hasPrefix("<") && reference.hasSuffix(">") { reference = String(reference.dropFirst().dropLast()) }
            guard let local = options.cidURL(reference), !local.isEmpty else { return }
            kept.insert(("src", local), at: 0)
        case .dataImage(let url):
            kept.insert(("src", url), at: 0)
        case .mailto, .rejected:
            return
        }
        if !context.hidden { hasVisibleContent = true }
        open("img", kept)
    }

    private func isTrackingPixel(
        _ attributes: [(name: String, value: String)], _ css: CSSFilter.Result?, _ context: Context, host: String
    ) -> Bool {
        if context.hidden || TrackerDomains.contains(host: host) { return true }
        func attributeLength(_ name: String) -> Double? {
            attributes.first(where: { $0.name == name }).flatMap { CSSFilter.length($0.value.trimmingSpaces().lowercased()) }
        }
        let width = css?.width ?? attributeLength("width")
        let height = css?.height ?? attributeLength("height")
        switch (width, height) {
        case let (width?, height?): return (width <= 1 && height <= 1) || width == 0 || height == 0
        case let (width?, nil): return width <= 1
        case let (nil, height?): return height <= 1
        case (nil, nil): return false
        }
    }

    private mutating func placeholder(_ attributes: [(name: String, value: String)], _ css: CSSFilter.Result?, _ context: Context) {
        let alt = attributes.first(where: { $0.name == "alt" })?.value.trimmingSpaces() ?? ""
        var kept: [(String, String?)] = [
            ("class", HTMLSanitizer.placeholderClass),
            ("title", alt.isEmpty ? "Remote image blocked" : "Remote image blocked: \(alt.prefix(200))"),
        ]
        func dimension(_ name: String, _ fromCSS: Double?) -> Int? {
            let value = fromCSS ?? attributes.first(where: { $0.name == name }).flatMap { CSSFilter.length($0.value.trimmingSpaces().lowercased()) }
            guard let value, value >= 1, value <= 4_000 else { return nil }
            return Int(value)
        }
        var style = ["display: inline-block"]
        if let width = dimension("width", css?.width) { style.append("width: \(width)px") }
        if let height = dimension("height", css?.height) { style.append("height: \(height)px") }
        kept.append(("style", style.joined(separator: "; ")))
        if !context.hidden { hasVisibleContent = true }
        open("span", kept)
        output += Escape.text(String(alt.prefix(200)))
        output += "</span>"
    }

    private mutating func open(_ tag: String, _ attributes: [(String, String?)]) {
        output += "<" + tag
        for (name, value) in attributes {
            output += " " + name
            if let value { output += "=\"" + Escape.attribute(value) + "\"" }
        }
        output += ">"
    }
}

enum Escape {
    static func text(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else {
            return text
        }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func attribute(_ value: String) -> String {
        var result = ""
        result.reserveCapacity(value.utf8.count + 16)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension String {
    func trimmingSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
