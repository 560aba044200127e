import MailModel
import SearchIndex

/// The boolean structure of a query — negation, `OR`, parentheses and `{…}` — over the pieces
/// the phrase scanner found (text tokens and filter phrases), and how it becomes free text plus
/// `SearchFilters`.
///
/// The grammar is `FTS5QueryBuilder`'s: `query := item*`, `item := unary (OR unary)*`,
/// `unary := piece | -unary | ( query ) | { query }`; OR binds tighter than the implicit AND.
/// Groups and OR lists that hold only text stay in the free text, written as typed, where the
/// builder reads the same structure again. Everything that involves a filter becomes filters:
/// at the top level, `from:john` sets the sender, `-from:john` adds an exclusion, and
/// `from:john OR from:mary` a group of alternatives; words sharing an OR or a negation with a
/// filter (`budget OR from:john`) go into the filters as `SearchFilters.text`. Free text made only
/// of exclusions (`-draft from:john`) has nothing to rank, so it moves to the filters too.
struct QueryStructure {
    enum Unit {
        case text(Int)
        case filter(QueryFilterAction, negated: Bool)
        case open(brace: Bool, negated: Bool)
        case close(brace: Bool)
        case or
    }

    indirect enum Node {
        case text(Int)
        case filter(QueryFilterAction, negated: Bool)
        case group([Node], brace: Bool, negated: Bool, closed: Bool)
        case or([Node])
    }

    let tokens: [QueryToken]

    /// The free text and filters of the pieces `units`, in order.
    func lower(_ units: [Unit]) -> (text: String, filters: SearchFilters) {
        var parser = Parser(units: Self.balanced(units))
        let items = parser.sequence().items
        var text: [String] = []
        var filters = SearchFilters()
        for item in items { visitTopLevel(item, text: &text, filters: &filters) }
        var freeText = text.joined(separator: " ")
        // Without a `-` nothing is negated, so there is something to match (or nothing at all).
        if freeText.unicodeScalars.contains("-") {
            let compiled = FTS5QueryBuilder.query(for: freeText)
            if compiled.match == nil, compiled.exclusion != nil {
                filters.merge(SearchFilters(text: freeText))
                freeText = ""
            }
        }
        return (freeText, filters)
    }

    private func visitTopLevel(_ node: Node, text: inout [String], filters: inout SearchFilters) {
        guard hasFilter(node) else {
            let rendered = render(node)
            if !rendered.isEmpty { text.append(rendered) }
            return
        }
        switch node {
        case .filter(let action, negated: false):
            action.apply(to: &filters)
        case .group(let items, brace: false, negated: false, _):
            // A plain group at the top level is AND, like the top level itself.
            for item in items { visitTopLevel(item, text: &text, filters: &filters) }
        default:
            filters.merge(lowerToFilters(node))
        }
    }

    /// The node as filters (it holds at least one filter, or is text inside such a node).
    private func lowerToFilters(_ node: Node) -> SearchFilters {
        guard hasFilter(node) else {
            let rendered = render(node)
            return rendered.isEmpty ? SearchFilters() : SearchFilters(text: rendered)
        }
        switch node {
        case .text:
            return SearchFilters() // unreachable: text holds no filter
        case .filter(let action, let negated):
            var filters = SearchFilters()
            action.apply(to: &filters)
            return negated ? SearchFilters(excluded: [filters]) : filters
        case .group(let items, let brace, let negated, _):
            var inner = SearchFilters()
            if brace {
                inner = alternatives(items)
            } else {
                for item in items { inner.merge(lowerToFilters(item)) }
            }
            return negated ? SearchFilters(excluded: [inner]) : inner
        case .or(let items):
            return alternatives(items)
        }
    }

    private func alternatives(_ items: [Node]) -> SearchFilters {
        let lowered = items.map(lowerToFilters)
        return lowered.count == 1 ? lowered[0] : SearchFilters(anyOf: [lowered])
    }

    private func hasFilter(_ node: Node) -> Bool {
        switch node {
        case .text: return false
        case .filter: return true
        case .group(let items, _, _, _), .or(let items): return items.contains(where: hasFilter)
        }
    }

    /// The text of a node as typed (single spaces), which `FTS5QueryBuilder` parses back into the
    /// same structure.
    private func render(_ node: Node) -> String {
        switch node {
        case .text(let k):
            return String(tokens[k].raw)
        case .filter:
            return ""
        case .group(let items, let brace, let negated, let closed):
            let inner = items.map(render).filter { !$0.isEmpty }.joined(separator: " ")
            guard !inner.isEmpty else { return "" }
            return (negated ? "-" : "") + (brace ? "{" : "(") + inner + (closed ? (brace ? "}" : ")") : "")
        case .or(let items):
            return items.map(render).filter { !$0.isEmpty }.joined(separator: " OR ")
        }
    }

    /// Drops closing marks that close nothing or the other kind of group, and groups nested
    /// deeper than `FTS5QueryBuilder.maximumDepth` (their content stays), as the builder does.
    static func balanced(_ units: [Unit]) -> [Unit] {
        var out: [Unit] = []
        out.reserveCapacity(units.count)
        var stack: [(brace: Bool, kept: Bool)] = []
        var depth = 0
        for unit in units {
            switch unit {
            case .open(let brace, _):
                let keep = depth < FTS5QueryBuilder.maximumDepth
                stack.append((brace, keep))
                if keep { depth += 1; out.append(unit) }
            case .close(let brace):
                guard let top = stack.last, top.brace == brace else { continue }
                stack.removeLast()
                if top.kept { depth -= 1; out.append(unit) }
            case .text, .filter, .or:
                out.append(unit)
            }
        }
        return out
    }

    private struct Parser {
        let units: [Unit]
        var position = 0

        init(units: [Unit]) { self.units = units }

        /// Items up to the end, or up to and including the closing mark of the current group.
        mutating func sequence() -> (items: [Node], closed: Bool) {
            var items: [Node] = []
            while position < units.count {
                switch units[position] {
                case .close:
                    position += 1
                    return (items, true)
                case .or:
                    position += 1 // no left operand: ignored
                case .text, .filter, .open:
                    var alternatives = [unary()]
                    while position < units.count, case .or = units[position] {
                        while position < units.count, case .or = units[position] { position += 1 }
                        guard position < units.count, startsOperand(units[position]) else { break }
                        alternatives.append(unary())
                    }
                    items.append(alternatives.count == 1 ? alternatives[0] : .or(alternatives))
                }
            }
            return (items, false)
        }

        private func startsOperand(_ unit: Unit) -> Bool {
            switch unit {
            case .text, .filter, .open: return true
            case .close, .or: return false
            }
        }

        private mutating func unary() -> Node {
            let unit = units[position]
            position += 1
            switch unit {
            case .text(let k):
                return .text(k)
            case .filter(let action, let negated):
                return .filter(action, negated: negated)
            case .open(let brace, let negated):
                let (items, closed) = sequence()
                return .group(items, brace: brace, negated: negated, closed: closed)
            case .close, .or:
                return .group([], brace: false, negated: false, closed: true)
            }
        }
    }
}
