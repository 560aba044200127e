import Foundation

/// The client cache of spec 004: keys normalised (trimmed, lower-cased), a 2-minute TTL, at most
/// 20 entries with least-recently-used eviction, and invalidation when the index changes
/// (entries remember the index generation they were computed at: `SearchIndexManager.generation`).
public final class SearchCache<Value: Sendable>: @unchecked Sendable {
    public let capacity: Int
    public let timeToLive: TimeInterval
    /// Whether keys are trimmed and lower-cased (spec 004), or used as given (a caller whose keys
    /// are already canonical, and whose queries differ by case: `a OR b` is not `a or b`).
    public let normalizesKeys: Bool
    private let now: @Sendable () -> Date
    private let lock = NSLock()
    private var entries: [String: (value: Value, stored: Date, generation: Int, lastUse: UInt64)] = [:]
    private var useCounter: UInt64 = 0

    public init(capacity: Int = 20, timeToLive: TimeInterval = 120, normalizesKeys: Bool = true,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.capacity = capacity
        self.timeToLive = timeToLive
        self.normalizesKeys = normalizesKeys
        self.now = now
    }

    public static func normalize(_ key: String) -> String {
        key.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// The cached value for `key`, if fresh and computed at `generation`.
    public func value(for key: String, generation: Int) -> Value? {
        lock.lock(); defer { lock.unlock() }
        let k = normalizesKeys ? Self.normalize(key) : key
        guard let entry = entries[k] else { return nil }
        guard entry.generation == generation, now().timeIntervalSince(entry.stored) < timeToLive else {
            entries[k] = nil
            return nil
        }
        useCounter += 1
        entries[k]?.lastUse = useCounter
        return entry.value
    }

    public func insert(_ value: Value, for key: String, generation: Int) {
        lock.lock(); defer { lock.unlock() }
        useCounter += 1
        entries[normalizesKeys ? Self.normalize(key) : key] = (value, now(), generation, useCounter)
        while entries.count > capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            entries[oldest.key] = nil
        }
    }

    public func removeAll() {
        lock.lock(); defer { lock.unlock() }
        entries.removeAll()
    }

    public var count: Int {
        lock.lock(); defer { lock.unlock() }
        return entries.count
    }
}
