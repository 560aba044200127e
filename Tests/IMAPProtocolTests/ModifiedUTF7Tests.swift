import XCTest
@testable import IMAPProtocol

/// RFC 3501 §5.1.3 mailbox names.
final class ModifiedUTF7Tests: XCTestCase {
    func testDecodesTheRFCExamplesAndCommonNames() {
        XCTAssertEqual(ModifiedUTF7.decode(Array("&AOQ-".utf8)), "ä")
        XCTAssertEqual(ModifiedUTF7.decode(Array("&ZeVnLIqe-".utf8)), "日本語")
        XCTAssertEqual(ModifiedUTF7.decode(Array("Entw&APw-rfe".utf8)), "Entwürfe")
        XCTAssertEqual(ModifiedUTF7.decode(Array("~peter/mail/&U,BTFw-/&ZeVnLIqe-".utf8)), "~peter/mail/台北/日本語")
        XCTAssertEqual(ModifiedUTF7.decode(Array("Tom &- Jerry".utf8)), "Tom & Jerry")
        XCTAssertEqual(ModifiedUTF7.decode(Array("&2D3eAA-".utf8)), "😀", "a surrogate pair")
        XCTAssertEqual(ModifiedUTF7.decode(Array("&BB4EQgQ,BEAEMAQyBDsENQQ9BD0ESwQ1-".utf8)), "Отправленные")
        XCTAssertEqual(ModifiedUTF7.decode([]), "")
    }

    func testInvalidEncodingsAreNil() {
        for bad in ["&AOQ", "&AO-", "&2D0-", "&AOQA-", "&A*Q-", "a\u{7F}", "\tx", "ä"] {
            XCTAssertNil(ModifiedUTF7.decode(Array(bad.utf8)), bad)
        }
    }

    func testEncodingRoundTrips() {
        XCTAssertEqual(ModifiedUTF7.encode("ä"), Array("&AOQ-".utf8))
        XCTAssertEqual(ModifiedUTF7.encode("日本語"), Array("&ZeVnLIqe-".utf8))
        XCTAssertEqual(ModifiedUTF7.encode("A&B"), Array("A&-B".utf8))
        for name in ["INBOX", "Entwürfe", "Отправленные", "😀 party/🎉", "a&b&", "tab\there", "~peter/台北", "日本語ab日本語"] {
            XCTAssertEqual(ModifiedUTF7.decode(ModifiedUTF7.encode(name)), name, name)
            XCTAssertTrue(ModifiedUTF7.encode(name).allSatisfy { $0 >= 0x20 && $0 < 0x7F }, name)
        }
    }

    func testMailboxNamesKeepTheirWireBytes() {
        let broken = IMAPMailboxName(raw: Array("Bad&AO-name".utf8))
        XCTAssertEqual(broken.name, "Bad&AO-name", "shown as is when it does not decode")
        XCTAssertEqual(broken.raw, Array("Bad&AO-name".utf8))
        XCTAssertEqual(IMAPMailboxName(raw: Array("Grüße".utf8)).name, "Grüße", "UTF8=ACCEPT servers send UTF-8")
        XCTAssertTrue(IMAPMailboxName(raw: Array("inbox".utf8)).isInbox)
        XCTAssertFalse(IMAPMailboxName("INBOX.Sent").isInbox)
    }
}
