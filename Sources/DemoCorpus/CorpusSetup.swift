/// What every iterator over one configuration shares: the cast with the owner, weighted
/// choices of correspondents, and the time frame in whole seconds.
struct CorpusSetup: Sendable {
    static let owner = 0

    let seed: UInt64
    let count: Int
    let startSeconds: Int64
    let endSeconds: Int64
    let ownerOffsetMinutes: Int
    let inboxWindowSeconds: Int64
    /// The owner at index 0, then `Cast.people` (so a cast index `i` is person `i + 1`).
    let people: [Person]
    let colleagues: [Int]
    let weightedColleagues: [Int]
    let weightedExternals: [Int]
    let weightedFriends: [Int]
    let forumPosters: [Int]
    let marcus: Int

    init(_ configuration: DemoCorpusConfiguration) {
        seed = configuration.seed
        count = max(0, configuration.messageCount)
        let end = configuration.endDate.timeIntervalSince1970.rounded(.down)
        endSeconds = Int64(end)
        startSeconds = endSeconds - Int64(max(3_600, configuration.span.rounded(.down)))
        ownerOffsetMinutes = configuration.ownerUTCOffsetMinutes
        inboxWindowSeconds = Int64(max(0, configuration.inboxWindow.rounded(.down)))
        let owner = Person(configuration.ownerName, configuration.ownerAddress,
                           zone: configuration.ownerUTCOffsetMinutes, .owner)
        let people = [owner] + Cast.people
        self.people = people
        func weighted(_ circle: Person.Circle) -> [Int] {
            var result: [Int] = []
            for (i, person) in people.enumerated() where person.circle == circle {
                result.append(contentsOf: repeatElement(i, count: person.weight))
            }
            return result
        }
        colleagues = people.indices.filter { people[$0].circle == .colleague }
        weightedColleagues = weighted(.colleague)
        weightedExternals = weighted(.external)
        weightedFriends = weighted(.friend)
        forumPosters = weighted(.forumMember) + weighted(.forumMember) + weighted(.friend)
            + people.indices.filter { people[$0].circle == .colleague }.prefix(3)
        marcus = people.firstIndex { $0.address == "marcus.johnson@example.com" } ?? 1
    }

    /// The time of message `index`: denser towards the end, shaped to the owner's waking hours,
    /// never decreasing with the index.
    func time(of index: Int, jitter: Double) -> Int64 {
        let u = (Double(index) + jitter) / Double(max(count, 1))
        let shaped = u * (3 - u) / 2          // density grows 3× from the oldest to the newest
        let span = Double(endSeconds - startSeconds)
        let offset = Double(ownerOffsetMinutes * 60)
        let local = Double(startSeconds) + shaped * span + offset
        let day = (local / 86_400).rounded(.down)
        let fraction = (local - day * 86_400) / 86_400
        var seconds = Int64(day * 86_400 + Self.wakingHours(fraction) * 86_400 - offset)
        if seconds > endSeconds { seconds = endSeconds }
        if seconds < startSeconds { seconds = startSeconds }
        return seconds
    }

    /// Maps a uniform fraction of a day to a time of day: 5 % of mail before 07:00,
    /// 37 % in the morning, 43 % in the afternoon, 15 % in the evening.
    private static func wakingHours(_ p: Double) -> Double {
        let hours: [Double] = [0, 7, 12, 18, 24]
        let mass: [Double] = [0, 0.05, 0.42, 0.85, 1.0]
        var i = 1
        while i < 4 && p > mass[i] { i += 1 }
        let h = hours[i - 1] + (p - mass[i - 1]) / (mass[i] - mass[i - 1]) * (hours[i] - hours[i - 1])
        return h / 24
    }
}
