import Foundation
@testable import SecretStore
import XCTest

/// The encrypted file: round trips, reopening, a wrong passphrase, deletion, its mode, damaged files
/// and concurrent writers. Most tests derive keys with scrypt N = 2^10 (the debug build's scrypt at
/// the standard 2^15 takes seconds); `testStandardCostIsWrittenInTheHeader` uses the real cost.
final class EncryptedFileStoreTests: XCTestCase {
    private var directory: URL!
    private let passphrase = "correct horse battery staple"
    private let cheap = EncryptedFileStore.KeyDerivation(log2N: 10, r: 8, p: 1)

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("secret-store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private var fileURL: URL { directory.appendingPathComponent(EncryptedFileStore.fileName) }

    private func makeStore(unlock: Bool = true) throws -> EncryptedFileStore {
        let store = EncryptedFileStore(fileURL: fileURL, keyDerivation: cheap)
        if unlock { try store.unlock(passphrase: passphrase) }
        return store
    }

    private let work = SecretKey(account: "work", purpose: .password)
    private let gmailRefresh = SecretKey(account: "gmail", purpose: .oauthRefreshToken)
    private let gmailAccess = SecretKey(account: "gmail", purpose: .oauthAccessToken)

    private func assertError(_ kind: SecretStoreError.Kind, _ body: @autoclosure () throws -> Any?,
                             contains words: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try body()
            XCTFail("expected a \(kind) error, got none", file: file, line: line)
        } catch let error as SecretStoreError {
            XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
            if let words { XCTAssertTrue(error.description.contains(words), "\(error) does not say \(words)", file: file, line: line) }
        } catch {
            XCTFail("expected a SecretStoreError, got \(error)", file: file, line: line)
        }
    }

    func testRoundTrip() throws {
        let store = try makeStore()
        XCTAssertEqual(store.kind, .encryptedFile)
        XCTAssertFalse(store.isLocked)
        XCTAssertNil(try store.secret(for: work))
        try store.store("hunter2", for: work)
        try store.store("1//0refresh-token-ü-€-😀", for: gmailRefresh)
        XCTAssertEqual(try store.secret(for: work), "hunter2")
        XCTAssertEqual(try store.secret(for: gmailRefresh), "1//0refresh-token-ü-€-😀")
        XCTAssertNil(try store.secret(for: gmailAccess))
        try store.store("changed", for: work)
        XCTAssertEqual(try store.secret(for: work), "changed")
        XCTAssertEqual(try store.keys(), [gmailRefresh, work])
    }

    func testNothingIsInPlainText() throws {
        let store = try makeStore()
        try store.store("hunter2-plain-marker", for: work)
        let bytes = try Data(contentsOf: fileURL)
        XCTAssertNil(bytes.range(of: Data("hunter2-plain-marker".utf8)))
        XCTAssertNil(bytes.range(of: Data("work".utf8)), "account names are encrypted too")
        XCTAssertEqual(Array(bytes.prefix(9)), Array("MSSECRET".utf8) + [1])
    }

    func testSurvivesReopen() throws {
        try makeStore().store("hunter2", for: work)
        let reopened = try makeStore(unlock: false)
        XCTAssertTrue(reopened.isLocked)
        assertError(.locked, try reopened.secret(for: work), contains: "locked: unlock the store with your passphrase")
        try reopened.unlock(passphrase: passphrase)
        XCTAssertEqual(try reopened.secret(for: work), "hunter2")
        reopened.lock()
        XCTAssertTrue(reopened.isLocked)
        assertError(.locked, try reopened.store("x", for: work))
        assertError(.locked, try reopened.delete(work))
    }

    func testWrongPassphraseLeavesTheFileUntouched() throws {
        try makeStore().store("hunter2", for: work)
        let before = try Data(contentsOf: fileURL)
        let attributesBefore = try FileManager.default.attributesOfItem(atPath: fileURL.path)
        let other = try makeStore(unlock: false)
        assertError(.wrongPassphrase, try other.unlock(passphrase: "Correct horse battery staple"), contains: "wrong passphrase")
        XCTAssertTrue(other.isLocked)
        assertError(.locked, try other.store("evil", for: work))
        assertError(.wrongPassphrase, try other.changePassphrase(from: "not the passphrase", to: "a new passphrase"))
        XCTAssertEqual(try Data(contentsOf: fileURL), before, "a wrong passphrase must never change the file")
        let attributesAfter = try FileManager.default.attributesOfItem(atPath: fileURL.path)
        XCTAssertEqual(attributesBefore[.modificationDate] as? Date, attributesAfter[.modificationDate] as? Date)
        XCTAssertEqual(attributesBefore[.systemFileNumber] as? Int, attributesAfter[.systemFileNumber] as? Int, "not replaced either")
        try other.unlock(passphrase: passphrase)
        XCTAssertEqual(try other.secret(for: work), "hunter2")
    }

    func testDeleteKeepsTheOtherEntries() throws {
        let store = try makeStore()
        try store.store("hunter2", for: work)
        try store.store("refresh", for: gmailRefresh)
        try store.store("access", for: gmailAccess)
        try store.delete(gmailAccess)
        try store.delete(SecretKey(account: "nobody", purpose: .password)) // nothing there: no error
        XCTAssertNil(try store.secret(for: gmailAccess))
        XCTAssertEqual(try store.secret(for: gmailRefresh), "refresh")
        XCTAssertEqual(try store.secret(for: work), "hunter2")
        try store.delete(work)
        let reopened = try makeStore()
        XCTAssertEqual(try reopened.keys(), [gmailRefresh])
    }

    func testFileModeIs0600AndNoTemporaryFileIsLeft() throws {
        let store = try makeStore()
        try store.store("hunter2", for: work)
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: fileURL.path)[.posixPermissions] as? NSNumber)
        XCTAssertEqual(mode.intValue & 0o777, 0o600)
        // Even with a permissive umask, and after a replacement.
        let old = umask(0)
        defer { umask(old) }
        try store.store("again", for: work)
        let after = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: fileURL.path)[.posixPermissions] as? NSNumber)
        XCTAssertEqual(after.intValue & 0o777, 0o600)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertEqual(names, ["secrets.enc", "secrets.enc.lock"])
    }

    func testFirstPassphraseCreatesTheFileAndMustNotBeTrivial() throws {
        let store = try makeStore(unlock: false)
        XCTAssertFalse(store.fileExists)
        assertError(.invalidArgument, try store.unlock(passphrase: "short"), contains: "too short")
        XCTAssertFalse(store.fileExists)
        try store.unlock(passphrase: passphrase)
        XCTAssertTrue(store.fileExists)
        XCTAssertEqual(try store.keys(), [])
    }

    func testChangingThePassphraseReencrypts() throws {
        let store = try makeStore()
        try store.store("hunter2", for: work)
        try store.store("refresh", for: gmailRefresh)
        let before = try Data(contentsOf: fileURL)
        assertError(.invalidArgument, try store.changePassphrase(from: passphrase, to: "short"))
        try store.changePassphrase(from: passphrase, to: "a brand new passphrase")
        let after = try Data(contentsOf: fileURL)
        XCTAssertNotEqual(before.subdata(in: 14..<30), after.subdata(in: 14..<30), "a new salt")
        XCTAssertEqual(try store.secret(for: work), "hunter2", "still unlocked, with the new key")

        let old = try makeStore(unlock: false)
        assertError(.wrongPassphrase, try old.unlock(passphrase: passphrase))
        try old.unlock(passphrase: "a brand new passphrase")
        XCTAssertEqual(try old.secret(for: gmailRefresh), "refresh")
    }

    func testAStoreUnlockedBeforeAnotherChangedThePassphraseAsksAgain() throws {
        let first = try makeStore()
        try first.store("hunter2", for: work)
        let second = try makeStore()
        try second.changePassphrase(from: passphrase, to: "a brand new passphrase")
        let before = try Data(contentsOf: fileURL)
        assertError(.locked, try first.store("stale key", for: work), contains: "changed by another process")
        XCTAssertTrue(first.isLocked)
        XCTAssertEqual(try Data(contentsOf: fileURL), before)
        try first.unlock(passphrase: "a brand new passphrase")
        XCTAssertEqual(try first.secret(for: work), "hunter2")
    }

    func testTwoStoresOnOneFileKeepEachOthersWrites() throws {
        let a = try makeStore()
        let b = try makeStore()
        try a.store("from a", for: work)
        try b.store("from b", for: gmailRefresh)
        XCTAssertEqual(try a.secret(for: gmailRefresh), "from b")
        XCTAssertEqual(try b.secret(for: work), "from a")
    }

    func testDamagedFilesGiveClearErrors() throws {
        let store = try makeStore()
        try store.store("hunter2", for: work)
        let good = try Data(contentsOf: fileURL)

        func check(_ bytes: Data, _ kind: SecretStoreError.Kind, _ words: String, line: UInt = #line) throws {
            try bytes.write(to: fileURL)
            let fresh = try makeStore(unlock: false)
            assertError(kind, try fresh.unlock(passphrase: passphrase), contains: words, line: line)
            XCTAssertEqual(try Data(contentsOf: fileURL), bytes, "a damaged file is left as it is", line: line)
        }
        try check(Data(), .corrupted, "it is empty")
        try check(Data("not a secrets file at all".utf8), .corrupted, "MSSECRET")
        try check(good.prefix(12), .corrupted, "cut short")
        try check(good.prefix(40), .corrupted, "cut short")
        for length in stride(from: 0, to: good.count, by: 7) {
            let fresh = EncryptedFileStore(fileURL: fileURL, keyDerivation: cheap)
            try good.prefix(length).write(to: fileURL)
            XCTAssertThrowsError(try fresh.unlock(passphrase: passphrase), "truncated to \(length) bytes")
        }
        try check(good.dropLast(), .wrongPassphrase, "or the file was altered")
        var flipped = good
        flipped[flipped.count - 20] ^= 0x01
        try check(flipped, .wrongPassphrase, "or the file was altered")
        var version = good
        version[8] = 9
        try check(version, .corrupted, "version 9")
        var cost = good
        cost[10] = 40
        try check(cost, .corrupted, "scrypt parameters out of range")

        // Damaged after it was unlocked: reads and writes fail, the damaged file is not overwritten.
        try good.write(to: fileURL)
        try store.unlock(passphrase: passphrase)
        try flipped.write(to: fileURL)
        assertError(.corrupted, try store.secret(for: work), contains: "was altered")
        assertError(.corrupted, try store.store("x", for: gmailAccess))
        XCTAssertEqual(try Data(contentsOf: fileURL), flipped)
    }

    func testConcurrentStoresFromTwoThreadsLoseNothing() throws {
        let store = try makeStore()
        let perThread = 40
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for index in 0..<perThread {
                do {
                    try store.store("secret \(thread)-\(index)", for: SecretKey(account: "account-\(thread)-\(index)", purpose: .password))
                } catch {
                    XCTFail("store failed: \(error)")
                }
            }
        }
        // And two stores on the same file (as two processes would be), each on its own thread.
        let other = try makeStore()
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            let mine = thread == 0 ? store : other
            for index in 0..<perThread {
                do {
                    try mine.store("token \(thread)-\(index)", for: SecretKey(account: "account-\(thread)-\(index)", purpose: .oauthAccessToken))
                } catch {
                    XCTFail("store failed: \(error)")
                }
            }
        }
        let reopened = try makeStore()
        XCTAssertEqual(try reopened.keys().count, 2 * 2 * perThread)
        for thread in 0..<2 {
            for index in 0..<perThread {
                XCTAssertEqual(try reopened.secret(for: SecretKey(account: "account-\(thread)-\(index)", purpose: .password)), "secret \(thread)-\(index)")
                XCTAssertEqual(try reopened.secret(for: SecretKey(account: "account-\(thread)-\(index)", purpose: .oauthAccessToken)), "token \(thread)-\(index)")
            }
        }
    }

    func testStandardCostIsWrittenInTheHeader() throws {
        let store = EncryptedFileStore(dataDirectory: directory)
        XCTAssertEqual(store.fileURL, fileURL)
        try store.unlock(passphrase: passphrase)
        let bytes = [UInt8](try Data(contentsOf: fileURL))
        XCTAssertEqual(Array(bytes[9...13]), [1, 15, 8, 1, 16], "scrypt, N = 2^15, r = 8, p = 1, a 16-byte salt")
        try store.store("hunter2", for: work)
        let reopened = EncryptedFileStore(dataDirectory: directory)
        try reopened.unlock(passphrase: passphrase)
        XCTAssertEqual(try reopened.secret(for: work), "hunter2")
    }

    func testInvalidKeys() throws {
        let store = try makeStore()
        assertError(.invalidKey, try store.store("x", for: SecretKey(account: "", purpose: .password)))
        assertError(.invalidKey, try store.secret(for: SecretKey(account: "a\0b", purpose: .password)))
    }
}
