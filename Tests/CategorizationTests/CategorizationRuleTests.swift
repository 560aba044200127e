import Categorization
import MailModel
import MailParsing
import XCTest

/// The header signals and the rules: each category's cheapest evidence, the order in which they
/// win, and the hard cases no single header decides.
final class CategorizationRuleTests: XCTestCase {
    func input(from: String, name: String? = "Someone", subject: String = "", body: String = "", headers: [(String, String)] = [],
               isReply: Bool = false, to: Int = 1) -> CategorizationInput {
        CategorizationInput(emailId: 1, accountId: 1, from: Address(name: name, email: from), toCount: to, ccCount: 0,
                            subject: subject, bodyPrefix: body, isReply: isReply, hasAttachment: false,
                            signals: CategorySignalReader.signals(headers: headers.map { (name: $0.0, value: $0.1) }), embedding: nil)
    }

    func category(_ i: CategorizationInput) -> AICategory { RuleCategorizer().categorize([i])[0].category }

    func testHeaderSignalsAreReadFromAParsedMessage() {
        let raw = """
            From: Shop <news@shop.example>
            List-Unsubscribe: <https://shop.example/u>
            X-Mailchimp-Campaign: 123
            Precedence: bulk
            Auto-Submitted: no
            X-Gmail-Labels: Inbox,Category Promotions

            Hello
            """
        let s = CategorySignalReader.signals(of: MIMEParser.parse(Array(raw.utf8)))
        XCTAssertTrue(s.contains(.listUnsubscribe))
        XCTAssertTrue(s.contains(.emailServiceProvider))
        XCTAssertTrue(s.contains(.precedenceBulk))
        XCTAssertFalse(s.contains(.autoSubmitted), "Auto-Submitted: no is a person's mail")
        XCTAssertEqual(s.labelCategory, .promotions)
    }

    func testLabelCategoriesOfTakeoutAndIMAPAreRecognisedButUserLabelsAreNot() {
        XCTAssertEqual(CategorySignals.category(ofLabel: "Category Personal"), .primary)
        XCTAssertEqual(CategorySignals.category(ofLabel: "Category Updates"), .updates)
        XCTAssertEqual(CategorySignals.category(ofLabel: "\\Social"), .social)
        XCTAssertEqual(CategorySignals.category(ofLabel: "CATEGORY_FORUMS"), .forums)
        XCTAssertNil(CategorySignals.category(ofLabel: "Social"), "a user's own label is a folder")
        var s = CategorySignals.listId
        s.labelCategory = .forums
        XCTAssertEqual(s.labelCategory, .forums)
        XCTAssertTrue(s.contains(.listId))
    }

    func testALabelWinsOverEveryHeaderRule() {
        let d = RuleCategorizer().categorize([input(from: "a@lists.example", headers: [("List-Post", "<mailto:l@x>"), ("X-Gmail-Labels", "Category Social")])])[0]
        XCTAssertEqual(d.category, .social)
        XCTAssertEqual(d.method, .label)
    }

    func testListPostMakesAForumEvenWithListUnsubscribe() {
        let d = RuleCategorizer().categorize([input(from: "marcus@ettus.example", subject: "[USRP-users] B210 overflow",
                                                    headers: [("List-Id", "usrp-users.lists.ettus.com"), ("List-Post", "<mailto:usrp-users@lists>"),
                                                              ("List-Unsubscribe", "<mailto:leave>"), ("Precedence", "list")])])[0]
        XCTAssertEqual(d.category, .forums)
        XCTAssertEqual(d.method, .rule)
        XCTAssertTrue(d.reason.contains("List-Post"), d.reason)
    }

    func testAListPostFromAProtonUserIsAForumNotAPromotion() {
        let headers = [("List-Id", "usrp-users.lists.ettus.com"), ("List-Post", "<mailto:usrp-users@lists>"),
                       ("List-Unsubscribe", "<mailto:leave>"), ("Feedback-ID", "47010692:user:proton")]
        XCTAssertEqual(category(input(from: "olo1618@protonmail.example", subject: "[USRP-users] Re: X310", headers: headers)), .forums)
        // A bulk sender's campaign Feedback-ID still marks bulk mail.
        XCTAssertTrue(CategorySignalReader.signals(headers: [(name: "Feedback-ID", value: "123:campaign:esp")]).contains(.emailServiceProvider))
    }

        func testSocialNetworkDomainsAreSocialThroughTheirSubdomains() {
        XCTAssertEqual(category(input(from: "notification@facebookmail.com", subject: "Anna commented on your photo")), .social)
        XCTAssertEqual(category(input(from: "no-reply@mail.instagram.com", subject: "New login")), .social)
    }

    func testReceiptsFromNoReplySendersAreUpdatesAndOffersArePromotions() {
        XCTAssertEqual(category(input(from: "no-reply@shop.example", subject: "Your receipt", body: "Amount paid: $12. Order #123")), .updates)
        XCTAssertEqual(category(input(from: "news@shop.example", subject: "40% off everything this weekend",
                                      body: "Shop now. Unsubscribe", headers: [("List-Unsubscribe", "<https://u>")])), .promotions)
        XCTAssertEqual(category(input(from: "alerts@bank.example", subject: "Security alert: new sign-in",
                                      headers: [("Auto-Submitted", "auto-generated")])), .updates)
    }

    func testAPersonWritingAboutAnInvoiceFromWebmailIsPrimary() {
        let d = RuleCategorizer().categorize([input(from: "tom.brown@gmail.com", name: "Tom Brown", subject: "Invoice for the kitchen work",
                                                    body: "attached is the invoice, payment due Friday")])[0]
        XCTAssertEqual(d.category, .primary)
        XCTAssertGreaterThanOrEqual(d.confidence, RuleCategorizer.sure)
    }

    func testANewsletterWithoutListUnsubscribeIsCaughtByItsFooterAndSender() {
        XCTAssertEqual(category(input(from: "hello@books.example", subject: "The newsletter: what's new this month",
                                      body: "In this issue: our picks. You are receiving this email because you subscribed. Unsubscribe here.")),
                       .promotions)
    }

    func testPersonToPersonMailIsPrimaryAndSaysWhy() {
        let d = RuleCategorizer().categorize([input(from: "jeff.dasovich@enron.com", name: "Jeff Dasovich", subject: "Re: call tomorrow",
                                                    body: "Let's talk at 10.", isReply: true)])[0]
        XCTAssertEqual(d.category, .primary)
        XCTAssertTrue(d.reason.contains("person"), d.reason)
    }

    func testTheClassifierDecidesOnlyWhereTheRulesAreNotSure() throws {
        func vector(_ hot: Int) -> [Float] { (0..<384).map { $0 == hot ? 1 : 0.01 } }
        var examples: [(category: AICategory, features: [Float], weight: Float)] = []
        for _ in 0..<6 {
            examples.append((.promotions, CentroidClassifier.features(embedding: vector(1), input: input(from: "x@y.example")), 1))
            examples.append((.updates, CentroidClassifier.features(embedding: vector(2), input: input(from: "x@y.example")), 1))
        }
        let pipeline = CategorizationPipeline(classifier: CentroidClassifier(examples: examples))
        // Bulk evidence with no telling words: the rules guess (fallback); the embedding decides.
        var unsure = input(from: "team@shop.example", subject: "Hello", headers: [("List-Unsubscribe", "<https://u>")])
        unsure.embedding = vector(2)
        var sure = input(from: "anna.kim@gmail.com", name: "Anna Kim", subject: "Lunch?", isReply: true)
        sure.embedding = vector(1)
        let d = try pipeline.categorize([unsure, sure])
        XCTAssertEqual(d[0].category, .updates)
        XCTAssertEqual(d[0].method, .classifier)
        XCTAssertTrue(d[0].usedEmbedding)
        XCTAssertEqual(d[1].category, .primary, "a sure rule is not second-guessed")
        XCTAssertEqual(d[1].method, .rule)
    }

    func testAUserChoiceForASenderIsAPreferenceForItsOtherMail() throws {
        let pipeline = CategorizationPipeline(preferences: [1: ["deals@shop.example": .init(category: .primary, emailId: 9)]])
        let d = try pipeline.categorize([input(from: "Deals@Shop.example", subject: "50% off", headers: [("List-Unsubscribe", "<u>")])])[0]
        XCTAssertEqual(d.category, .primary)
        XCTAssertEqual(d.method, .preference)
    }
}
