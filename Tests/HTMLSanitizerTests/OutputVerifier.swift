import XCTest
@testable import HTMLSanitizer

/// Parses a sanitizer's output again with the HTML5 parser, as a browser would, and checks every
/// node of the tree: stronger than looking for substrings.
enum OutputVerifier {
    /// The structure gumbo adds around any fragment.
    static let structural: Set<String> = ["html", "head", "body"]
    static let extraAttributes: Set<String> = ["style", "href", "src", "target", "rel", "class"]

    static func problems(in html: String, allowRemoteImages: Bool, localImagePrefix: String = "/api/") -> [String] {
        guard let document = GumboDocument(html) else { return ["gumbo gave no tree"] }
        var problems: [String] = []
        var stack: [GumboNodeRef] = [document.document]
        while let node = stack.popLast() {
            switch node.kind {
            case .document:
                stack.append(contentsOf: node.children)
            case .comment:
                problems.append("comment node")
            case .cdata, .template:
                problems.append("\(node.kind) node")
            case .text, .whitespace:
                break
            case .element:
                let name = node.tagName
                guard node.isHTML else {
                    problems.append("foreign element \(name)")
                    continue
                }
                if !HTMLSanitizer.allowedElements.contains(name) && !structural.contains(name) {
                    problems.append("element <\(name.isEmpty ? node.originalTagName : name)>")
                }
                for (attribute, value) in node.attributes {
                    problems += check(attribute: attribute, value: value, on: name, allowRemoteImages: allowRemoteImages, localImagePrefix: localImagePrefix)
                }
                stack.append(contentsOf: node.children)
            }
        }
        return problems
    }

    private static func check(attribute: String, value: String, on element: String, allowRemoteImages: Bool, localImagePrefix: String) -> [String] {
        var problems: [String] = []
        let lowerValue = value.lowercased()
        if attribute.hasPrefix("on") { problems.append("event handler \(attribute)") }
        if HTMLSanitizer.allowedAttributes[attribute] == nil && !extraAttributes.contains(attribute) {
            problems.append("attribute \(attribute) on <\(element)>")
        }
        switch attribute {
        case "href":
            if element != "a" { problems.append("href on <\(element)>") }
            let scheme = URLPolicy.scheme(of: value)
            if !["http", "https", "mailto"].contains(scheme ?? "") { problems.append("href \(value)") }
        case "src":
            if element != "img" { problems.append("src on <\(element)>") }
            let scheme = URLPolicy.scheme(of: value)
            if scheme == "http" || scheme == "https" {
                if !allowRemoteImages { problems.append("remote image \(value) while blocked") }
            } else if scheme == "data" {
                if !lowerValue.hasPrefix("data:image/png") && !lowerValue.hasPrefix("data:image/gif")
                    && !lowerValue.hasPrefix("data:image/jpeg") && !lowerValue.hasPrefix("data:image/webp") {
                    problems.append("data src \(value)")
                }
            } else if !value.hasPrefix(localImagePrefix) {
                problems.append("src \(value)")
            }
        case "style":
            for fragment in ["url", "expression", "\\", "@", "javascript", "behavior", "binding", "position"] where lowerValue.contains(fragment) {
                problems.append("style \(value)")
            }
        case "class":
            if value != HTMLSanitizer.placeholderClass || element != "span" { problems.append("class \(value)") }
        case "target":
            if value != "_blank" { problems.append("target \(value)") }
        case "rel":
            if value != "noopener noreferrer" { problems.append("rel \(value)") }
        default:
            break
        }
        return problems
    }

    /// The markup of the tags only (text is escaped, so every `<` in the output starts a tag).
    static func tags(of html: String) -> [String] {
        var tags: [String] = []
        var current: String?
        for character in html {
            if character == "<" { current = "<" } else if current != nil { current!.append(character) }
            if character == ">", let tag = current {
                tags.append(tag)
                current = nil
            }
        }
        return tags
    }
}
