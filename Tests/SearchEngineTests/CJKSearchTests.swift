import Foundation
import GRDB
import MailModel
import MailStore
import SearchEngine
import SearchIndex
import XCTest

/// Words inside Chinese, Japanese and Korean text (written without spaces) and the folds unicode61
/// lacks (ß = ss, full-width Latin), through the real index (the `mailsearch` FTS5 tokenizer) and
/// the highlighter.
final class CJKSearchTests: XCTestCase {
    typealias Spec = SearchFixture.Spec

    func testWordsInsideCJKRunsAreFoundWhereverTheyStand() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            Spec(subject: "会議", body: "来週の会議は東京本社で行います。予算報告書を準備してください。"),
            Spec(subject: "项目", body: "我们下周在北京开会讨论项目预算报告"),
            Spec(subject: "회의", body: "다음 주 서울에서 회의가 있습니다"),
            Spec(subject: "Kernel", body: "Linux内核模块的编译方法"),
            Spec(subject: "English", body: "The budget meeting is in Tokyo next week."),
        ])
        let useCase = f.useCase()
        // Mid-sentence words of two characters, in the subject or not.
        try await f.assertFinds(useCase, "東京", [ids[0]])
        try await f.assertFinds(useCase, "予算", [ids[0]])
        try await f.assertFinds(useCase, "北京", [ids[1]])
        try await f.assertFinds(useCase, "预算", [ids[1]])
        try await f.assertFinds(useCase, "开会", [ids[1]])
        try await f.assertFinds(useCase, "서울", [ids[2]])
        // Longer words: the phrase of their bigrams, so only where the characters are adjacent.
        try await f.assertFinds(useCase, "预算报告", [ids[1]])
        try await f.assertFinds(useCase, "報告書", [ids[0]])
        try await f.assertFinds(useCase, "北京预算", [])
        // One character.
        try await f.assertFinds(useCase, "京", [ids[0], ids[1]])
        // Mixed scripts, with and without a space.
        try await f.assertFinds(useCase, "Linux内核", [ids[3]])
        try await f.assertFinds(useCase, "linux 模块", [ids[3]])
        try await f.assertFinds(useCase, "会議 東京", [ids[0]])
        // English is as before.
        try await f.assertFinds(useCase, "tokyo budget", [ids[4]])
    }

    func testSharpSAndFullWidthLatinFoldAsGmailDoes() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            Spec(subject: "Adresse", body: "Wir wohnen in der Hauptstraße 5."),
            Spec(subject: "Order", body: "Model ＡＢＣ１２ shipped; Ærøskøbing office."),
            Spec(subject: "Other", body: "Nothing about streets."),
        ])
        let useCase = f.useCase()
        try await f.assertFinds(useCase, "hauptstrasse", [ids[0]])
        try await f.assertFinds(useCase, "Hauptstraße", [ids[0]])
        try await f.assertFinds(useCase, "abc12", [ids[1]])
        try await f.assertFinds(useCase, "aeroskobing", [ids[1]])
    }

    /// Parts of identifiers a person types without their start (issue examples and real ones).
    func testPartsOfIdentifiersAreFound() async throws {
        let f = try SearchFixture()
        let ids = try f.add([
            Spec(subject: "Sample", body: "The sample TANBAC TB0193 was shipped with RFC2822 headers."),
            Spec(subject: "Driver", body: "Call add_wired_entry() and then usrp->setRxFreq(2.4e9) on the HTTPServer object."),
            Spec(subject: "Config", body: "Set foo.bar.baz in /usr/local/lib/libuhd.so.4.1; crash at 0x7fffed11b040 in uhd 4.1.0."),
            Spec(subject: "Prose", body: "Meet at 10am for the frequency review; the server is down."),
        ])
        let useCase = f.useCase()
        try await f.assertFinds(useCase, "TB019", [ids[0]])
        try await f.assertFinds(useCase, "0193", [ids[0]])
        try await f.assertFinds(useCase, "2822", [ids[0]])
        try await f.assertFinds(useCase, "wired_entry", [ids[1]])
        try await f.assertFinds(useCase, "RxFreq", [ids[1]])
        try await f.assertFinds(useCase, "bar.baz", [ids[2]])
        try await f.assertFinds(useCase, "lib/libuhd.so", [ids[2]])
        try await f.assertFinds(useCase, "7fffed11", [ids[2]])
        try await f.assertFinds(useCase, "4.1.0", [ids[2]])
        // Whole words are as before: "server" is in the prose and, as a part, in HTTPServer.
        try await f.assertFinds(useCase, "server", [ids[1], ids[3]])
        // No part is made inside a plain word, a short number run or a hexadecimal id.
        try await f.assertFinds(useCase, "am", [])
        try await f.assertFinds(useCase, "ncy", [])
    }

    func testHighlightsMarkTheCJKWordAndTheFoldedOne() throws {
        let text = "我们下周在北京开会讨论项目预算报告"
        let ranges = MatchHighlighter(queryText: "北京 预算").ranges(in: text, field: .snippet)
        let marked = ranges.map { (text as NSString).substring(with: NSRange(location: $0.start, length: $0.length)) }
        XCTAssertEqual(marked, ["北京", "预算"])
        let german = MatchHighlighter(queryText: "strasse").ranges(in: "Die Hauptstraße und die Straße", field: .snippet)
        XCTAssertEqual(german.map(\.start), [24])
        // The snippet starts where the whole word stands, not at an earlier character it shares
        // (パ of パケット for パターン), and is about as long in CJK as in words.
        let japanese = "拡張されたパケットマッチングの説明です。" + String(repeating: "これは長い説明の文章です。", count: 6)
            + "正規表現のパターンを使います。" + String(repeating: "後の文章です。", count: 8)
        let hit = try XCTUnwrap(MatchHighlighter(queryText: "パターン").snippet(of: japanese))
        XCTAssertEqual(hit.ranges.map { (hit.text as NSString).substring(with: NSRange(location: $0.start, length: $0.length)) },
                       ["パターン"])
        XCTAssertGreaterThan(hit.text.count, 50)
        XCTAssertLessThan(hit.text.count, 90)
        let snippet = MatchHighlighter(queryText: "预算").snippet(of: text)
        XCTAssertNotNil(snippet)
        XCTAssertEqual(snippet.map { s in s.ranges.map { (s.text as NSString).substring(with: NSRange(location: $0.start, length: $0.length)) } },
                       ["预算"])
    }

    /// The tokens the index holds for CJK text: overlapping bigrams, each character too, positions
    /// in order; ASCII text exactly as unicode61 makes it.
    func testTheIndexHoldsBigramsAndCharactersOfCJKRuns() throws {
        let f = try SearchFixture()
        try f.add([Spec(subject: "x", body: "北京开会 plain Straße")])
        let terms = try f.index.read { db -> [String] in
            try db.execute(sql: "CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, email_fts, instance)")
            return try String.fetchAll(db, sql: "SELECT term FROM temp.v WHERE col = 'body' ORDER BY offset, term")
        }
        // By position: 北 北京 | 京 京开 | 开 开会 and the last character 会 (colocated, so that a run
        // of n characters takes n − 1 positions in documents and in queries alike).
        XCTAssertEqual(terms, ["北", "北京", "京", "京开", "会", "开", "开会", "plain", "strasse"])
    }

    /// An index made by an earlier version (unicode61) is rebuilt once, with a notice, and then finds CJK words.
    func testAnIndexMadeWithTheOldTokenizerIsRebuilt() throws {
        let f = try SearchFixture()
        try f.add([Spec(subject: "会議", body: "我们下周在北京开会")])
        let url = f.store.directory.searchDatabaseURL
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        let old = try DatabaseQueue(path: url.path)
        try old.write { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE email_fts USING fts5(email_id UNINDEXED, account_id UNINDEXED, subject, body,
                    sender_name, sender_email, tokenize='unicode61 remove_diacritics 2', prefix='2');
                CREATE TABLE index_meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                INSERT INTO email_fts (rowid, email_id, account_id, subject, body) VALUES (1, 1, 1, '会議', '我们下周在北京开会');
                """)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM email_fts WHERE email_fts MATCH '北京'"), 0)
        }
        try old.close()
        let notices = NoticeBox()
        let reopened = try SearchIndexManager(store: f.store, notices: { notices.append($0) })
        let found = try reopened.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM email_fts WHERE email_fts MATCH '北京'") ?? 0
        }
        XCTAssertEqual(found, 1)
        XCTAssertTrue(notices.values.contains { $0.contains("Rebuilding the search index") && $0.contains("Chinese") },
                      "\(notices.values)")
    }
}
