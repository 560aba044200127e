import Categorization
import MailModel
import XCTest

/// Mail of list software other than Mailman 3 (issue 20): majordomo's, Mailman 2's, ezmlm's and
/// Yahoo Groups' headers, and lists the mailbox itself shows when the headers say little.
final class ListDetectionTests: XCTestCase {
    func signals(_ headers: [(String, String)]) -> CategorySignals {
        CategorySignalReader.signals(headers: headers.map { (name: $0.0, value: $0.1) })
    }

    func input(from: String, name: String? = "Ann Lee", subject: String = "Re: a patch", to: [String],
               headers: [(String, String)], id: Int64 = 1) -> CategorizationInput {
        CategorizationInput(emailId: id, accountId: 1, from: Address(name: name, email: from), toCount: to.count, ccCount: 0,
                            subject: subject, bodyPrefix: "I tried it and it works.", isReply: false, hasAttachment: false,
                            signals: signals(headers), embedding: nil, recipients: to)
    }

    func testOlderListSoftwaresHeadersAreListSignals() {
        XCTAssertTrue(signals([("Sender", "owner-linux-kernel@vger.kernel.org")]).contains(.listSender))
        XCTAssertTrue(signals([("Sender", "linux-kernel-owner@vger.kernel.org")]).contains(.listSender))
        XCTAssertTrue(signals([("Return-Path", "<ilug-admin@linux.ie>")]).contains(.listSender))
        XCTAssertTrue(signals([("Return-Path", "<fork-bounces+me=example.com@xent.com>")]).contains(.listSender))
        XCTAssertTrue(signals([("Errors-To", "rpm-list-admin@freshrpms.net")]).contains(.listSender))
        XCTAssertTrue(signals([("Sender", "Discussion <FOO-L@LISTSERV.EXAMPLE.EDU>")]).contains(.listSender))
        XCTAssertTrue(signals([("X-BeenThere", "exmh-users@example.com")]).contains(.listManager))
        XCTAssertTrue(signals([("Delivered-To", "mailing list secprog@securityfocus.com")]).contains(.listManager))
        XCTAssertTrue(signals([("X-Loop", "debian-user@lists.debian.org")]).contains(.listManager))
        XCTAssertTrue(signals([("List-Subscribe", "<mailto:x-request@example.org>")]).contains(.listManager))
        // Not lists: a person as Sender, a mass mailer's bounce address, a person's Delivered-To.
        XCTAssertFalse(signals([("Sender", "Ann Lee <ann@example.org>")]).contains(.listSender))
        XCTAssertTrue(signals([("Return-Path", "<bounces+12345-ab=me.example@sendgrid.net>")]).isDisjoint(with: .anyList))
        XCTAssertFalse(signals([("Delivered-To", "me@example.org")]).contains(.listManager))
    }

    func testAPersonsPostWithPrecedenceBulkIsForumsNotPromotions() {
        let rules = RuleCategorizer()
        let majordomo = input(from: "ann@example.org", to: ["linux-kernel@vger.kernel.org"],
                              headers: [("Precedence", "bulk"), ("Sender", "linux-kernel-owner@vger.kernel.org")])
        XCTAssertEqual(rules.categorize([majordomo])[0].category, .forums)
        let listIdAndBulk = input(from: "ann@example.org", to: ["l@example.org"], headers: [("List-Id", "<l.example.org>"), ("Precedence", "bulk")])
        XCTAssertEqual(rules.categorize([listIdAndBulk])[0].category, .forums)
        // Precedence: bulk alone, nothing promotional: not an offer.
        let bulkOnly = input(from: "ann@example.org", to: ["l@example.org"], headers: [("Precedence", "bulk")])
        XCTAssertNotEqual(rules.categorize([bulkOnly])[0].category, .promotions)
        // A marketer's mail through a list manager stays Promotions.
        let offer = input(from: "news@shop.example", name: "Shop", subject: "50% off everything this weekend", to: ["me@example.org"],
                          headers: [("List-Subscribe", "<https://shop.example/s>"), ("List-Unsubscribe", "<https://shop.example/u>"),
                                    ("X-Mailchimp-Campaign", "1")])
        XCTAssertEqual(rules.categorize([offer])[0].category, .promotions)
    }

    func rows(_ emails: [(from: String, to: [String], subject: String, headers: [(String, String)])]) -> [MailboxListDetector.Row] {
        emails.map { MailboxListDetector.Row(accountId: 1, from: $0.from, recipients: $0.to, subject: $0.subject, signals: signals($0.headers)) }
    }

    func testAnAddressManyPeopleWriteToWithListHeadersIsLearntAsAList() {
        let list = "dns-swap@lists.example.net"
        var mail = (1...4).map { (from: "p\($0)@example.org", to: [list], subject: "Re: zone transfer", headers: [("Precedence", "bulk")]) }
        // The owner, whom people write to without list headers, and a person copied on list threads.
        mail += (1...4).map { (from: "f\($0)@example.org", to: ["me@example.org"], subject: "lunch?", headers: [(String, String)]()) }
        mail += (1...4).map { (from: "q\($0)@example.org", to: [list, "craig@example.org"], subject: "Re: zone", headers: [("Precedence", "bulk")]) }
        mail.append((from: "craig@example.org", to: ["me@example.org"], subject: "hi", headers: []))
        let lists = MailboxListDetector().lists(of: rows(mail))
        XCTAssertEqual(lists.addresses[1], [list], "the owner and a person who writes mail are not lists")

        // A post whose list software wrote no header at all, to the list alone: Forums.
        let rules = RuleCategorizer(lists: lists)
        let bare = input(from: "new@example.org", subject: "zone question", to: [list], headers: [])
        XCTAssertEqual(rules.categorize([bare])[0].category, .forums)
        XCTAssertTrue(rules.categorize([bare])[0].reason.contains(list))
        // A reply sent to the owner with the list in copy reached the owner directly: not Forums by the address.
        let direct = input(from: "new@example.org", subject: "Re: zone", to: ["me@example.org", list], headers: [])
        XCTAssertEqual(rules.categorize([direct])[0].category, .primary)
        // Fewer than three people: not a list.
        XCTAssertNil(MailboxListDetector().lists(of: rows(Array(mail.prefix(2)))).addresses[1])
    }

    func testASubjectTagManyPeopleUseIsAListAndNumbersAreNot() {
        XCTAssertEqual(MailboxListDetector.subjectTag("Re: [Spambayes] test sets?"), "spambayes")
        XCTAssertEqual(MailboxListDetector.subjectTag("Fwd: RE: [smu-betas] new members"), "smu-betas")
        XCTAssertNil(MailboxListDetector.subjectTag("[12345] your ticket"))
        XCTAssertNil(MailboxListDetector.subjectTag("No tag [here]"))
        XCTAssertNil(MailboxListDetector.subjectTag("["))
        let mail = (1...3).map { (from: "p\($0)@example.org", to: ["me@example.org"], subject: "[Spambayes] idea \($0)", headers: [(String, String)]()) }
        let lists = MailboxListDetector().lists(of: rows(mail))
        XCTAssertEqual(lists.subjectTags[1], ["spambayes"])
        let post = input(from: "tim@example.org", subject: "Re: [Spambayes] all but one testing", to: [], headers: [])
        XCTAssertEqual(RuleCategorizer(lists: lists).categorize([post])[0].category, .forums)
    }

    func testBadHeaderValuesDoNotCrash() {
        for value in ["", "<", ">", "<>", "@", "owner-@", "-owner@", "<@>", "a <b", "\u{0}", String(repeating: "<", count: 1000)] {
            _ = signals([("Sender", value), ("Return-Path", value), ("Errors-To", value), ("Delivered-To", value)])
            _ = MailboxListDetector.subjectTag(value)
        }
    }
}

/// A decision made as the mail was stored (`CategorizationInput.provisional`: the rules without
/// the mailbox's lists) stands only where the lists give no evidence, with the method the rules
/// give such a decision; else the rules decide again.
final class ProvisionalDecisionTests: XCTestCase {
    func input(provisional: CategoryDecision?, to: [String] = ["team@lists.example.net"],
               headers: [(String, String)] = []) -> CategorizationInput {
        CategorizationInput(emailId: 1, accountId: 1, from: Address(name: "Ann Lee", email: "ann@example.org"), toCount: to.count,
                            ccCount: 0, subject: "a question", bodyPrefix: "Has anyone seen this?", isReply: false,
                            hasAttachment: false, signals: CategorySignalReader.signals(headers: headers.map { (name: $0.0, value: $0.1) }),
                            embedding: nil, recipients: to, provisional: provisional)
    }

    func testTheProvisionalDecisionStandsWhereTheListsSayNothing() {
        // A decision the rules would not make, to tell it was taken up rather than made again.
        let stored = CategoryDecision(category: .updates, method: .rule, reason: "as stored", confidence: 0.6)
        let decided = RuleCategorizer().categorize([input(provisional: stored)])[0]
        XCTAssertEqual(decided.category, .updates)
        XCTAssertEqual(decided.reason, "as stored")
        XCTAssertEqual(decided.method, .fallback, "under the rules' sure confidence: a fallback, as the rules would say")
        var sure = stored
        sure.confidence = 0.9
        XCTAssertEqual(RuleCategorizer().categorize([input(provisional: sure)])[0].method, .rule)
        let labelled = input(provisional: CategoryDecision(category: .social, method: .rule, reason: "label", confidence: 1),
                             headers: [("X-Gmail-Labels", "Category Social")])
        XCTAssertEqual(labelled.signals?.labelCategory, .social)
        XCTAssertEqual(RuleCategorizer().categorize([labelled])[0].method, .label)
    }

    func testTheRulesDecideAgainWhereTheMailboxShowsAList() {
        var lists = MailboxLists()
        lists.addresses[1] = ["team@lists.example.net"]
        let stored = CategoryDecision(category: .primary, method: .rule, reason: "from a person", confidence: 0.85)
        let decided = RuleCategorizer(lists: lists).categorize([input(provisional: stored)])[0]
        XCTAssertEqual(decided.category, .forums)
        XCTAssertTrue(decided.reason.contains("written to team@lists.example.net"), decided.reason)
        // Without a provisional decision the rules decide as ever.
        XCTAssertEqual(RuleCategorizer().categorize([input(provisional: nil)])[0].category, .primary)
    }
}
