/// A sentence or subject with `{slot}` placeholders, compiled once into byte pieces.
struct Template: Sendable {
    enum Piece: Sendable {
        case text([UInt8])
        case slot(Slot)
    }

    let pieces: [Piece]

    init(_ source: String) {
        var pieces: [Piece] = []
        var literal: [UInt8] = []
        var bytes = Array(source.utf8)[...]
        while let byte = bytes.first {
            if byte == UInt8(ascii: "{"), let close = bytes.firstIndex(of: UInt8(ascii: "}")) {
                let name = String(decoding: bytes[(bytes.startIndex + 1)..<close], as: UTF8.self)
                guard let slot = Slot(rawValue: name) else {
                    preconditionFailure("unknown template slot {\(name)} in \"\(source)\"")
                }
                if !literal.isEmpty { pieces.append(.text(literal)) }
                literal = []
                pieces.append(.slot(slot))
                bytes = bytes[(close + 1)...]
            } else {
                literal.append(byte)
                bytes = bytes.dropFirst()
            }
        }
        if !literal.isEmpty { pieces.append(.text(literal)) }
        self.pieces = pieces
    }
}

/// The placeholders a template may use.
enum Slot: String, Sendable {
    case first          // the recipient's first name
    case me             // the sender's first name
    case colleague      // another colleague's first name
    case name           // someone's full name
    case name2          // someone else's full name
    case candidate      // a job candidate
    case weekday
    case date           // a date a few days after the message: "March 14"
    case day            // the same with its weekday: "Friday, March 14"
    case month          // the month of the message: "March"
    case season
    case time           // "10:30"
    case num            // 2...12
    case bignum         // 100...9,999
    case amount         // "$12,400"
    case price          // "$42.99"
    case pct            // "12%"
    case percent        // 10...70 in steps of 5, without the sign
    case project
    case q              // the quarter of the message: "Q3"
    case year
    case city
    case room
    case dept
    case ticket
    case version
    case order
    case invoice
    case customer
    case restaurant
    case product
    case brand
    case code
    case tracking
    case last4
    case event
    case swift          // a Swift version
}

/// What the slots of one message are filled from.
struct FillContext {
    var recipientFirst: [UInt8]
    var senderFirst: [UInt8]
    var brand: [UInt8]
    var unixSeconds: Int64
    var offsetMinutes: Int
    /// The full name `{name}` stands for in this message; a random one when empty.
    var person: [UInt8] = []
}

extension DemoRandom {
    /// Appends the template with its slots filled.
    mutating func fill(_ template: Template, into out: inout [UInt8], context: FillContext) {
        for piece in template.pieces {
            switch piece {
            case .text(let bytes):
                out.append(contentsOf: bytes)
            case .slot(let slot):
                fillSlot(slot, into: &out, context: context)
            }
        }
    }

    mutating func filled(_ template: Template, context: FillContext) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(96)
        fill(template, into: &out, context: context)
        return out
    }

    private mutating func fillSlot(_ slot: Slot, into out: inout [UInt8], context: FillContext) {
        let words = Vocabulary.words
        switch slot {
        case .first: out.append(contentsOf: context.recipientFirst)
        case .me: out.append(contentsOf: context.senderFirst)
        case .colleague:
            var name = pick(words.colleagueFirstNames)
            var tries = 0
            while (name == context.recipientFirst || name == context.senderFirst) && tries < 4 {
                name = pick(words.colleagueFirstNames)
                tries += 1
            }
            out.append(contentsOf: name)
        case .name:
            if context.person.isEmpty {
                out.append(contentsOf: pick(words.fullNames))
            } else {
                out.append(contentsOf: context.person)
            }
        case .name2: out.append(contentsOf: pick(words.fullNames))
        case .candidate: out.append(contentsOf: pick(words.candidates))
        case .weekday: out.append(CivilTime.longWeekdayNames[between(1, 5)])
        case .date, .day:
            let t = CivilTime(unixSeconds: context.unixSeconds + Int64(between(1, 21)) * 86_400,
                              offsetMinutes: context.offsetMinutes)
            if slot == .day {
                out.append(CivilTime.longWeekdayNames[t.weekday])
                out.append(", ")
            }
            out.append(CivilTime.longMonthNames[t.month - 1])
            out.append(32)
            out.appendDecimal(t.day)
        case .month:
            let t = CivilTime(unixSeconds: context.unixSeconds, offsetMinutes: context.offsetMinutes)
            out.append(CivilTime.longMonthNames[t.month - 1])
        case .season:
            let t = CivilTime(unixSeconds: context.unixSeconds, offsetMinutes: context.offsetMinutes)
            let seasons: [StaticString] = ["Winter", "Spring", "Summer", "Fall"]
            out.append(seasons[(t.month % 12) / 3])
        case .time: out.append(contentsOf: pick(words.times))
        case .num: out.appendDecimal(between(2, 12))
        case .bignum: out.appendGrouped(between(100, 9_999))
        case .amount:
            out.append(UInt8(ascii: "$"))
            out.appendGrouped(between(2, 990) * 100)
        case .price:
            out.append(UInt8(ascii: "$"))
            out.appendDecimal(between(4, 380))
            out.append(UInt8(ascii: "."))
            out.appendDecimal(pick([99, 49, 0, 95, 50, 19]), width: 2)
        case .pct:
            out.appendDecimal(between(3, 40))
            out.append(UInt8(ascii: "%"))
        case .percent: out.appendDecimal(between(2, 14) * 5)
        case .project: out.append(contentsOf: pick(words.projects))
        case .q:
            let t = CivilTime(unixSeconds: context.unixSeconds, offsetMinutes: context.offsetMinutes)
            out.append(UInt8(ascii: "Q"))
            out.appendDecimal((t.month - 1) / 3 + 1)
        case .year:
            let t = CivilTime(unixSeconds: context.unixSeconds, offsetMinutes: context.offsetMinutes)
            out.appendDecimal(t.year)
        case .city: out.append(contentsOf: pick(words.cities))
        case .room: out.append(contentsOf: pick(words.rooms))
        case .dept: out.append(contentsOf: pick(words.departments))
        case .ticket:
            out.append("INC-")
            out.appendDecimal(between(1_000, 9_999))
        case .version:
            out.append(UInt8(ascii: "v"))
            out.appendDecimal(between(1, 4))
            out.append(UInt8(ascii: "."))
            out.appendDecimal(between(0, 12))
            out.append(UInt8(ascii: "."))
            out.appendDecimal(between(0, 9))
        case .order:
            out.appendDecimal(between(100, 999))
            out.append(UInt8(ascii: "-"))
            out.appendDecimal(between(0, 9_999_999), width: 7)
        case .invoice:
            let t = CivilTime(unixSeconds: context.unixSeconds, offsetMinutes: context.offsetMinutes)
            out.append("INV-")
            out.appendDecimal(t.year)
            out.append(UInt8(ascii: "-"))
            out.appendDecimal(between(1, 9_999), width: 4)
        case .customer: out.append(contentsOf: pick(words.customers))
        case .restaurant: out.append(contentsOf: pick(words.restaurants))
        case .product: out.append(contentsOf: pick(words.products))
        case .brand: out.append(contentsOf: context.brand)
        case .code:
            let letters: StaticString = "ABCDEFGHJKLMNPQRSTUVWXYZ"
            letters.withUTF8Buffer { table in
                for _ in 0..<4 { out.append(table[below(table.count)]) }
            }
            out.appendDecimal(between(10, 99))
        case .tracking:
            out.append("1Z")
            out.appendHex(next(), digits: 16)
        case .last4: out.appendDecimal(between(0, 9_999), width: 4)
        case .event: out.append(contentsOf: pick(words.events))
        case .swift: out.append(contentsOf: pick(words.swiftVersions))
        }
    }
}
