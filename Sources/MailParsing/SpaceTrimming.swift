/// `trimmingCharacters(in: .whitespaces)` without Foundation's bridging to NSString, which on Linux
/// cost a thread summary more than its sentences' scoring: the same characters (tab, Unicode's space
/// separators, Zs, and the zero-width space, as CoreFoundation has it) off both ends, line breaks kept.
extension Substring {
    public var trimmedOfSpaces: String {
        let scalars = unicodeScalars
        var start = scalars.startIndex, end = scalars.endIndex
        while start < end, Self.isSpace(scalars[start]) { start = scalars.index(after: start) }
        while end > start, Self.isSpace(scalars[scalars.index(before: end)]) { end = scalars.index(before: end) }
        return String(scalars[start..<end])
    }

    /// What `CharacterSet.whitespaces` holds on Linux: U+0009, the general category Zs and U+200B
    /// (checked over every scalar by a test).
    public static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t"
            || (scalar.value >= 0x80 && (scalar.value == 0x200B || scalar.properties.generalCategory == .spaceSeparator))
    }
}

extension String {
    /// See `Substring.trimmedOfSpaces`.
    public var trimmedOfSpaces: String { self[...].trimmedOfSpaces }
}
