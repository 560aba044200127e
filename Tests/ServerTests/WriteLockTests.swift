import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import MailSearchKit
import MailSearchServer
import XCTest

/// Another process writing mail.sqlite (a sync, an import in a second terminal) holds its write
/// lock for seconds at a time. Readers in WAL mode are never blocked by it, so neither may be a
/// search, the status or the server itself: the service runs its SQLite work on its own pool and
/// writes a search's history entry after the answer.
final class WriteLockTests: XCTestCase {
    var fixture: ServerFixture!

    override func setUp() async throws {
        fixture = try await ServerFixture()
    }

    override func tearDown() async throws {
        fixture = nil
    }

    func testSearchesStatusAndHealthAnswerWhileAnotherConnectionHoldsTheWriteLock() async throws {
        let path = fixture.directory.appendingPathComponent("data/mail.sqlite").path
        let lock = WriteLockHolder(path: path, seconds: 5)
        try await fixture.app().test(.live) { client in
            // Warm: the first search opens what later ones reuse.
            let warm = try await client.execute(uri: "/api/search?q=budget", method: .get)
            XCTAssertEqual(warm.status, .ok)

            try lock.start()
            let started = Date()
            let statuses = try await withThrowingTaskGroup(of: (String, HTTPResponse.Status).self) { group in
                for i in 0..<50 {
                    // Each a first page: each records its query in the recent searches (a write).
                    group.addTask {
                        let uri = "/api/search?q=\(["budget", "offsite", "meeting", "notes", "report"][i % 5])+\(i)"
                        return (uri, try await client.execute(uri: uri, method: .get).status)
                    }
                }
                for _ in 0..<10 {
                    group.addTask { ("/api/status", try await client.execute(uri: "/api/status", method: .get).status) }
                }
                var all: [(String, HTTPResponse.Status)] = []
                for try await answer in group { all.append(answer) }
                return all
            }
            let answeredIn = Date().timeIntervalSince(started)
            XCTAssertTrue(lock.isHeld, "every answer came while the other connection still held the write lock")
            XCTAssertLessThan(answeredIn, 5, "50 searches and 10 status calls did not wait for the lock")
            XCTAssertEqual(statuses.count, 60)
            for (uri, status) in statuses { XCTAssertEqual(status, .ok, uri) }

            // The health check, while the lock is still held: the median of five.
            var times: [Double] = []
            for _ in 0..<5 {
                let before = Date()
                let health = try await client.execute(uri: "/api/health", method: .get)
                times.append(Date().timeIntervalSince(before))
                XCTAssertEqual(health.status, .ok)
            }
            XCTAssertTrue(lock.isHeld)
            XCTAssertLessThan(times.sorted()[2], 0.1, "health check times (s): \(times)")

            // Once the lock is gone, the searches' history entries are written, in order.
            try lock.wait()
            let suggestions = try decode(Suggestions.self, try await client.execute(uri: "/api/suggestions", method: .get))
            XCTAssertEqual(suggestions.recentSearches.count, 10, "the last 10 of the 51 recorded")
        }
    }
}

/// A second connection to mail.sqlite that takes its write lock (BEGIN IMMEDIATE) and holds it for
/// `seconds` on a thread of its own.
private final class WriteLockHolder: @unchecked Sendable {
    private let path: String
    private let seconds: TimeInterval
    private let state = NSCondition()
    private var held = false
    private var finished = false
    private var failure: Error?

    init(path: String, seconds: TimeInterval) {
        self.path = path
        self.seconds = seconds
    }

    var isHeld: Bool { state.withLock { held } }

    /// Returns once the lock is taken.
    func start() throws {
        let thread = Thread { [self] in
            do {
                let queue = try DatabaseQueue(path: path)
                try queue.inTransaction(.immediate) { _ in
                    state.withLock { held = true; state.broadcast() }
                    Thread.sleep(forTimeInterval: seconds)
                    state.withLock { held = false }
                    return .commit
                }
            } catch {
                state.withLock { failure = error }
            }
            state.withLock { finished = true; state.broadcast() }
        }
        thread.start()
        try state.withLock {
            while !held && !finished { state.wait() }
            if let failure { throw failure }
        }
    }

    /// Returns once the lock is released.
    func wait() throws {
        try state.withLock {
            while !finished { state.wait() }
            if let failure { throw failure }
        }
    }
}
