import Foundation

/// A value behind a lock: the one lock box of the code base (NIOConcurrencyHelpers' `NIOLockedValueBox`
/// is not a dependency of every layer, and `Synchronization.Mutex` needs macOS 15).
public final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) {
        stored = value
    }

    /// Runs `body` with the value, holding the lock.
    public func withLockedValue<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }

    /// The value now.
    public var value: Value { withLockedValue { $0 } }

    /// Replaces the value.
    public func set(_ value: Value) { withLockedValue { $0 = value } }
}
