/// Filters an inline `style` attribute to an allowlist of presentational properties.
///
/// `<style>` elements are dropped entirely (no selector-level CSS is kept): email that matters is
/// styled inline, and a stylesheet can restyle the page around the message, hide text or load
/// fonts and images. Inside a `style` attribute:
/// - comments are removed first (they could split `expr/**/ession`);
/// - an attribute holding a backslash (CSS escapes can spell anything) or a control character is
///   dropped whole;
/// - each declaration is kept only when its property is allowlisted and its value has no `(`
///   other than `rgb( rgba( hsl( hsla( calc(` — which rules out `url(`, `image-set(`,
///   `expression(`, `attr(`, `var(` — no `@`, `<`, `>`, `{`, `}`, balanced quotes, and none of
///   `expression`, `javascript:`, `vbscript:`, `behavior`, `-moz-binding`, `@import`.
/// So CSS can never load anything: remote CSS images stay blocked even when the reader allows
/// remote images (only `<img>` follows that choice).
struct CSSFilter {
    struct Result {
        /// The kept declarations, `name: value; …`, or "" when none.
        var css: String
        /// `display:none`, `visibility:hidden`, `opacity:0`, or a zero width/height with
        /// `overflow:hidden` (read from the original declarations, kept or not).
        var hides: Bool
        var width: Double?
        var height: Double?
    }

    static let allowedProperties: Set<String> = [
        "color", "background-color", "background",
        "font", "font-family", "font-size", "font-style", "font-weight", "font-variant", "font-stretch",
        "line-height", "letter-spacing", "word-spacing", "word-break", "word-wrap", "overflow-wrap", "white-space",
        "text-align", "text-decoration", "text-decoration-line", "text-decoration-color", "text-decoration-style",
        "text-indent", "text-transform", "text-shadow", "text-overflow", "vertical-align", "direction",
        "margin", "margin-top", "margin-right", "margin-bottom", "margin-left",
        "padding", "padding-top", "padding-right", "padding-bottom", "padding-left",
        "border", "border-top", "border-right", "border-bottom", "border-left",
        "border-width", "border-style", "border-color", "border-radius", "border-collapse", "border-spacing",
        "border-top-width", "border-right-width", "border-bottom-width", "border-left-width",
        "border-top-style", "border-right-style", "border-bottom-style", "border-left-style",
        "border-top-color", "border-right-color", "border-bottom-color", "border-left-color",
        "border-top-left-radius", "border-top-right-radius", "border-bottom-left-radius", "border-bottom-right-radius",
        "width", "height", "min-width", "max-width", "min-height", "max-height",
        "display", "visibility", "opacity", "overflow", "overflow-x", "overflow-y",
        "float", "clear", "list-style-type", "list-style-position", "table-layout", "caption-side",
        "empty-cells", "box-sizing",
    ]

    private static let allowedFunctions: Set<String> = ["rgb", "rgba", "hsl", "hsla", "calc"]
    private static let forbiddenFragments = [
        "expression", "javascript:", "vbscript:", "behavior", "-moz-binding", "@import", "url(",
    ]

    static func filter(_ style: String) -> Result {
        let text = removingComments(style)
        var result = Result(css: "", hides: false, width: nil, height: nil)
        var kept: [String] = []
        var zeroSized = false
        var overflowHidden = false
        let rejectAll = text.unicodeScalars.contains { $0 == "\\" || ($0.value < 0x20 && $0 != "\t" && $0 != "\n" && $0 != "\r" && $0 != "\u{0C}") || (0x7F...0x9F).contains($0.value) }
        for declaration in text.split(separator: ";") {
            guard let colon = declaration.firstIndex(of: ":") else { continue }
            let name = trimmed(declaration[..<colon]).lowercased()
            let value = trimmed(declaration[declaration.index(after: colon)...])
            guard !name.isEmpty, !value.isEmpty else { continue }
            let plain = value.lowercased().replacingImportant()
            // What the element looks like (for tracking pixels and empty-result checks), even when
            // the declaration itself is not kept.
            switch name {
            case "display": if plain == "none" { result.hides = true }
            case "visibility": if plain == "hidden" || plain == "collapse" { result.hides = true }
            case "opacity": if let number = length(plain), number <= 0 { result.hides = true }
            case "width", "max-width":
                if let number = length(plain) {
                    if name == "width" { result.width = number }
                    if number <= 0 { zeroSized = true }
                }
            case "height", "max-height":
                if let number = length(plain) {
                    if name == "height" { result.height = number }
                    if number <= 0 { zeroSized = true }
                }
            case "overflow", "overflow-x", "overflow-y": if plain == "hidden" || plain == "clip" { overflowHidden = true }
            default: break
            }
            guard !rejectAll, allowedProperties.contains(name), isSafeValue(value) else { continue }
            kept.append("\(name): \(value)")
        }
        if zeroSized && overflowHidden { result.hides = true }
        result.css = kept.joined(separator: "; ")
        return result
    }

    /// A number of pixels (`1`, `1px`, `0.0`, `0pt`, `0em`); nil for percentages and the rest.
    static func length(_ text: String) -> Double? {
        var number = Substring(text)
        var pixels = true
        if number.hasSuffix("px") {
            number = number.dropLast(2)
        } else if let unit = ["pt", "rem", "em"].first(where: { number.hasSuffix($0) }) {
            number = number.dropLast(unit.count)
            pixels = false
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let value = Double(number) else { return nil }
        return pixels || value == 0 ? value : nil
    }

    static func isSafeValue(_ value: String) -> Bool {
        let lower = value.lowercased()
        for fragment in forbiddenFragments where lower.contains(fragment) { return false }
        var identifier = ""
        var doubleQuotes = 0
        var singleQuotes = 0
        for character in lower {
            switch character {
            case "@", "<", ">", "{", "}", "\\", ";": return false
            case "\"": doubleQuotes += 1
            case "'": singleQuotes += 1
            case "(":
                guard allowedFunctions.contains(identifier) else { return false }
            default: break
            }
            if character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_") {
                identifier.append(character)
            } else {
                identifier = ""
            }
        }
        return doubleQuotes % 2 == 0 && singleQuotes % 2 == 0
    }

    static func removingComments(_ text: String) -> String {
        guard text.contains("/*") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstRange(of: "/*") {
            result += rest[..<open.lowerBound]
            result += " "
            let after = rest[open.upperBound...]
            guard let close = after.firstRange(of: "*/") else { return result }
            rest = after[close.upperBound...]
        }
        result += rest
        return result
    }

    private static func trimmed(_ text: Substring) -> String {
        var text = text
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}

private extension String {
    /// The value without `!important` and surrounding spaces, for reading it (not for writing it).
    func replacingImportant() -> String {
        var text = Substring(self)
        if let bang = text.firstIndex(of: "!") { text = text[..<bang] }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
