import Foundation
import MailSearchKit
import XCTest

/// A test with a real Dovecot (Tests/IMAP/dovecot.py) and a scratch folder, both gone after each
/// test, as are the services it opened (`services`).
class DovecotTestCase: XCTestCase {
    var work: URL!
    var server: DovecotServer!
    var services: [MailSearchService] = []

    /// The scratch folder's name, before a UUID.
    class var workPrefix: String { "dovecot" }

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("\(Self.workPrefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        server = try DovecotServer()
    }

    override func tearDownWithError() throws {
        for service in services { service.shutdown() }
        services = []
        server?.stop()
        server = nil
        try? FileManager.default.removeItem(at: work)
    }
}
