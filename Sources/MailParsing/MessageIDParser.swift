/// Extracts message ids from Message-ID, In-Reply-To, References and Content-ID values.
enum MessageIDParser {
    /// How a value without any `<` is read.
    enum BareValue {
        /// Every whitespace- or comma-separated word is an id (Message-ID, Content-ID:
        /// `Message-ID: abc@example.com`).
        case words
        /// The words are ids only when every one of them looks like a bare id (`left@right`), as
        /// mailing-list archives that drop the brackets write them (`In-Reply-To: 1234@example.com`).
        /// Prose gives no id: old clients write `In-Reply-To: Message from miguel@example.com of
        /// 10 Jul 1997 23:28:17 CDT`, and the address in it must never link the replies to one
        /// person into a thread (spec 001 §5.2.4 builds the graph from Message-IDs only).
        case idList
    }

    /// The `<...>` ids without brackets, in order (comments skipped). A value without any `<`
    /// is read as `bare` says.
    static func ids(_ b: [UInt8], bare: BareValue) -> [String] {
        var out: [String] = []
        let n = b.count
        var i = 0
        var sawAngle = false
        var comment = 0
        var outsideComments: [UInt8] = []
        while i < n {
            let c = b[i]
            if comment > 0 {
                if c == UInt8(ascii: "(") { comment += 1 } else if c == UInt8(ascii: ")") { comment -= 1 }
                i += 1
                continue
            }
            if c == UInt8(ascii: "(") { comment = 1; outsideComments.append(0x20); i += 1; continue }
            if c == UInt8(ascii: "<") {
                sawAngle = true
                var j = i + 1
                while j < n && b[j] != UInt8(ascii: ">") && b[j] != UInt8(ascii: "<") { j += 1 }
                let id = b[(i + 1)..<j].filter { $0 > 0x20 }
                if !id.isEmpty && out.count < 10_000 { out.append(String(decoding: id, as: UTF8.self)) }
                i = (j < n && b[j] == UInt8(ascii: ">")) ? j + 1 : j
                continue
            }
            if !sawAngle { outsideComments.append(c) }
            i += 1
        }
        if sawAngle { return out }
        let words = outsideComments.split(whereSeparator: { $0 <= 0x20 || $0 == UInt8(ascii: ",") })
        if bare == .idList && !words.allSatisfy(isBareId) { return [] }
        for word in words.prefix(10_000) { out.append(String(decoding: word, as: UTF8.self)) }
        return out
    }

    /// `left@right`: one `@` with something on both sides, no quotes.
    private static func isBareId(_ word: ArraySlice<UInt8>) -> Bool {
        guard let at = word.firstIndex(of: UInt8(ascii: "@")) else { return false }
        let right = word[(at + 1)...]
        return at > word.startIndex && !right.isEmpty && !right.contains(UInt8(ascii: "@"))
            && !word.contains(UInt8(ascii: "\""))
    }
}
