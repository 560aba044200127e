import MailParsing
import XCTest

/// What an email's embedding is computed from: the words its sender wrote.
final class EmbeddingTextTests: XCTestCase {
    let ownWords = String(repeating: "The new FPGA image fixes the timing of the receive chain. ", count: 6)

    func testQuotedReplyAttributionSignatureAndListFooterAreLeftOut() {
        let body = """
        \(ownWords)
        On Tue, 3 Jan 2023, Ann Lee <ann@example.com> wrote:
        > Which image should I load?
        > Thanks
        --\u{20}
        Bob Smith | Radio Lab
        _______________________________________________
        USRP-users mailing list -- usrp-users@lists.ettus.com
        """
        let text = EmbeddingText.mainText(of: body)
        XCTAssertTrue(text.hasPrefix("The new FPGA image"))
        for absent in ["wrote:", "Which image", "Bob Smith", "mailing list"] {
            XCTAssertFalse(text.contains(absent), "\(absent) in \(text)")
        }
    }

    func testTheOutlookChainBelowAReplyIsLeftOut() {
        let body = "\(ownWords)\n\n-----Original Message-----\nFrom: Kay Mann\nSent: Monday\nSubject: gas\n\nPlease price the gas deal."
        let text = EmbeddingText.mainText(of: body)
        XCTAssertFalse(text.contains("Please price"))
        XCTAssertFalse(text.contains("Original Message"))
    }

    func testAShortReplyKeepsWhatItQuotesAfterItsOwnWords() {
        let body = "Agreed, go ahead.\n\n-----Original Message-----\nFrom: Kay Mann\nSent: Monday\n\nCan we sign the turbine contract with GE this week?"
        let text = EmbeddingText.mainText(of: body)
        XCTAssertTrue(text.hasPrefix("Agreed, go ahead."), text)
        XCTAssertTrue(text.contains("turbine contract"), text)
        let quoted = EmbeddingText.mainText(of: "Yes.\n> Shall we move the review to Friday?\n> Ann")
        XCTAssertEqual(quoted, "Yes.\nShall we move the review to Friday?\nAnn")
    }

    func testForwardedMailIsContent() {
        let body = "FYI\n---------- Forwarded message ---------\nFrom: IT <it@example.com>\nDate: Mon\n\nThe VPN moves to a new address on Saturday."
        XCTAssertTrue(EmbeddingText.mainText(of: body).contains("VPN moves"))
    }

    func testComposeJoinsSubjectSenderAndBodyAndKeepsTheRawFormOnRequest() {
        XCTAssertEqual(EmbeddingText.compose(subject: "Budget", fromName: "Sarah", body: "Numbers attached.\n> old"),
                       "Budget\nSarah\nNumbers attached.\nold")
        XCTAssertEqual(EmbeddingText.compose(subject: "Budget", fromName: nil, body: "a\n> b", clean: false), "Budget\na\n> b")
        XCTAssertEqual(EmbeddingText.mainText(of: String(repeating: "word ", count: 1_000)).count, EmbeddingText.keptCharacters)
    }
}
