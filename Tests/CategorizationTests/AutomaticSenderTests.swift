@testable import Categorization
import Foundation
import MailModel
import XCTest

/// `RuleCategorizer.isAutomatic` reads an ASCII local part byte by byte: the same answers as
/// the String comparisons it replaced, which still judge any other local part.
final class AutomaticSenderTests: XCTestCase {
    /// The words and the test as they were before the byte comparison.
    static let words = [
        "noreply", "no-reply", "no_reply", "donotreply", "do-not-reply", "do_not_reply", "notreply", "mailer-daemon",
        "postmaster", "notification", "notifications", "notify", "alert", "alerts", "automated", "auto-confirm",
        "autoconfirm", "bounce", "bounces", "system", "robot", "daemon", "updates", "update", "account", "accounts",
        "security", "verify", "verification", "confirm", "confirmation", "receipts", "receipt", "orders", "order",
        "billing", "invoice", "invoices", "shipping", "shipment", "tracking", "statements", "payments", "support-noreply",
    ]

    static func automaticBefore(_ head: String) -> Bool {
        words.contains { word in
            head == word || head.hasPrefix(word + "-") || head.hasPrefix(word + ".") || head.hasPrefix(word + "_")
                || (word.count >= 7 && head.contains(word))
        }
    }

    func testProgramsAndPeopleAreToldApartAsBefore() {
        var heads: [String] = Self.words
        for word in Self.words {
            let variants: [String] = [word + "-x", word + ".x", word + "_x", word + "x", "x" + word, word + "+tag", String(word.dropLast())]
            heads += variants
        }
        heads += ["jeff.skilling", "kenneth.lay", "alerts2", "my-notifications-list", "xnoreplyx", "no", "", "a",
                  "noreply\u{301}", "noreply-\u{301}x", "notificatioñ", "nötification", "résumé-notifications", "NoReply"]
        var random = SystemRandomNumberGenerator()
        let pieces = ["no", "reply", "-", ".", "_", "+", "notif", "ication", "s", "x", "é", "\u{301}", "update", "system"]
        for _ in 0..<2000 {
            var head = ""
            for _ in 0..<Int.random(in: 1...5, using: &random) { head += pieces.randomElement(using: &random)! }
            heads.append(head)
        }
        for head in heads {
            XCTAssertEqual(RuleCategorizer.isAutomatic(head), Self.automaticBefore(head), head)
            XCTAssertEqual(RuleCategorizer.isAutomatic(head.lowercased()), Self.automaticBefore(head.lowercased()), head)
        }
        XCTAssertEqual(CategoryVocabulary.automaticLocalParts, Self.words, "the words the comparison was made with")
    }
}
