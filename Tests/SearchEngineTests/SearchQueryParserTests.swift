import Foundation
import MailModel
import XCTest
import SearchEngine

/// FR-SEARCH-04 / AC-S-05: natural-language and operator query parsing.
/// The clock is pinned to Saturday 2024-06-15 10:00 local time; weeks start on Monday.
final class SearchQueryParserTests: XCTestCase {
    private let berlin = QueryParsingClock(zone: "Europe/Berlin")
    private let losAngeles = QueryParsingClock(zone: "America/Los_Angeles")

    private func parse(_ text: String) -> SearchQuery { berlin.parser.parse(text) }

    // MARK: - AC-S-05

    func test_AC_S_05_fromJohnLastWeekWithAttachments() {
        let query = parse("from john last week with attachments")
        XCTAssertEqual(query.filters.sender, "john")
        XCTAssertEqual(query.filters.dateRange, DateRange(start: berlin.day(2024, 6, 8), end: nil))
        XCTAssertEqual(query.filters.hasAttachment, true)
        XCTAssertEqual(query.text, "")
    }

    func test_AC_S_05_budgetReportFromSarah() {
        let query = parse("budget report from sarah")
        XCTAssertEqual(query.filters.sender, "sarah")
        XCTAssertEqual(query.text, "budget report")
        XCTAssertEqual(query.filters, SearchFilters(sender: "sarah"))
    }

    func test_AC_S_05_unreadPromotionsFromJohn() {
        let query = parse("unread promotions from john")
        XCTAssertEqual(query.filters, SearchFilters(sender: "john", category: .promotions, isRead: false))
        XCTAssertEqual(query.text, "")
    }

    // MARK: - Sender

    func test_sender_lowerCaseNameTakesOneWord() {
        let query = parse("from sarah budget")
        XCTAssertEqual(query.filters.sender, "sarah")
        XCTAssertEqual(query.text, "budget")
    }

    func test_sender_emailAddress() {
        let query = parse("invoice from john@example.com")
        XCTAssertEqual(query.filters.sender, "john@example.com")
        XCTAssertEqual(query.text, "invoice")
    }

    func test_sender_capitalisedNameTakesConsecutiveCapitalisedWords() {
        let query = parse("from John Smith budget")
        XCTAssertEqual(query.filters.sender, "John Smith")
        XCTAssertEqual(query.text, "budget")
    }

    func test_sender_capitalisedNameStopsAtFilterWordAndPunctuation() {
        XCTAssertEqual(parse("from John Smith Last Week").filters.sender, "John Smith")
        let query = parse("from John, Budget")
        XCTAssertEqual(query.filters.sender, "John")
        XCTAssertEqual(query.text, "Budget")
    }

    func test_sender_operatorForms() {
        XCTAssertEqual(parse("from:john").filters.sender, "john")
        XCTAssertEqual(parse("from:\"John Smith\" budget").filters.sender, "John Smith")
        XCTAssertEqual(parse("from:\"John Smith\" budget").text, "budget")
        XCTAssertEqual(parse("from: john").filters.sender, "john")
        XCTAssertEqual(parse("FROM:John@Example.com").filters.sender, "John@Example.com")
    }

    func test_sender_fromFollowedByProseIsText() {
        for text in ["notes from the offsite", "update from our team", "photos from my trip", "from a friend"] {
            let query = parse(text)
            XCTAssertNil(query.filters.sender, text)
            XCTAssertEqual(query.text, text)
        }
    }

    func test_sender_fromAprilJonesIsAPersonButFromAprilIsAMonth() {
        XCTAssertEqual(parse("from April Jones").filters.sender, "April Jones")
        let month = parse("invoices from April")
        XCTAssertNil(month.filters.sender)
        XCTAssertEqual(month.filters.dateRange, DateRange(start: berlin.day(2024, 4, 1), end: berlin.day(2024, 5, 1)))
        XCTAssertEqual(month.text, "invoices")
    }

    // MARK: - Recipient

    func test_recipient_atStartAfterFilterOrVerb() {
        XCTAssertEqual(parse("to sarah").filters.recipient, "sarah")
        let query = parse("from john to sarah budget")
        XCTAssertEqual(query.filters.sender, "john")
        XCTAssertEqual(query.filters.recipient, "sarah")
        XCTAssertEqual(query.text, "budget")
        let sent = parse("budget sent to Sarah Jones")
        XCTAssertEqual(sent.filters.recipient, "Sarah Jones")
        XCTAssertEqual(sent.text, "budget")
        let emails = parse("emails to bob")
        XCTAssertEqual(emails.filters.recipient, "bob")
        XCTAssertEqual(emails.text, "")
    }

    func test_recipient_operatorAndAddressAnywhere() {
        XCTAssertEqual(parse("to:sarah@example.com").filters.recipient, "sarah@example.com")
        XCTAssertEqual(parse("cc:bob").filters.recipient, "bob")
        let query = parse("report to sarah@example.com")
        XCTAssertEqual(query.filters.recipient, "sarah@example.com")
        XCTAssertEqual(query.text, "report")
    }

    func test_recipient_toInsideProseIsText() {
        for text in ["how to deploy", "reply to the budget", "welcome to Berlin", "to do list", "going to the party",
                     "to march", "postponed to friday"] {
            let query = parse(text)
            XCTAssertNil(query.filters.recipient, text)
            XCTAssertEqual(query.text, text)
        }
    }

    // MARK: - Subject

    func test_subject_operator() {
        XCTAssertEqual(parse("subject:budget").filters.subject, "budget")
        let query = parse("subject:\"quarterly review\" notes")
        XCTAssertEqual(query.filters.subject, "quarterly review")
        XCTAssertEqual(query.text, "notes")
    }

    // MARK: - Dates (Europe/Berlin, now = Sat 2024-06-15 10:00)

    private func assertRange(_ text: String, _ start: Date?, _ end: Date?, text remaining: String = "",
                             file: StaticString = #filePath, line: UInt = #line) {
        let query = parse(text)
        XCTAssertEqual(query.filters.dateRange, DateRange(start: start, end: end), text, file: file, line: line)
        XCTAssertEqual(query.text, remaining, text, file: file, line: line)
    }

    func test_date_todayAndYesterday() {
        assertRange("today", berlin.day(2024, 6, 15), berlin.day(2024, 6, 16))
        assertRange("yesterday", berlin.day(2024, 6, 14), berlin.day(2024, 6, 15))
    }

    func test_date_lastWeekIsThePrevious7Days() {
        assertRange("last week", berlin.day(2024, 6, 8), nil)
        assertRange("past week", berlin.day(2024, 6, 8), nil)
        assertRange("last 7 days", berlin.day(2024, 6, 8), nil)
        assertRange("in the last 7 days", berlin.day(2024, 6, 8), nil)
    }

    func test_date_thisWeekMonthYearAreCalendarPeriods() {
        assertRange("this week", berlin.day(2024, 6, 10), berlin.day(2024, 6, 17))
        assertRange("this month", berlin.day(2024, 6, 1), berlin.day(2024, 7, 1))
        assertRange("this year", berlin.day(2024, 1, 1), berlin.day(2025, 1, 1))
    }

    func test_date_lastMonthAndLastYearAreRollingWindows() {
        assertRange("last month", berlin.day(2024, 5, 15), nil)
        assertRange("last year", berlin.day(2023, 6, 15), nil)
        assertRange("past 2 weeks", berlin.day(2024, 6, 1), nil)
        assertRange("last 3 months", berlin.day(2024, 3, 15), nil)
        assertRange("within 3 days", berlin.day(2024, 6, 12), nil)
    }

    func test_date_monthWithoutYearIsTheMostRecentNotInTheFuture() {
        assertRange("in January", berlin.day(2024, 1, 1), berlin.day(2024, 2, 1))
        assertRange("in June", berlin.day(2024, 6, 1), berlin.day(2024, 7, 1))
        assertRange("in July", berlin.day(2023, 7, 1), berlin.day(2023, 8, 1))
        assertRange("in dec", berlin.day(2023, 12, 1), berlin.day(2024, 1, 1))
    }

    func test_date_monthWithYearAndYear() {
        assertRange("in March 2024", berlin.day(2024, 3, 1), berlin.day(2024, 4, 1))
        assertRange("in 2023", berlin.day(2023, 1, 1), berlin.day(2024, 1, 1))
    }

    func test_date_beforeAfterSinceOnUntil() {
        assertRange("before March", nil, berlin.day(2024, 3, 1))
        assertRange("before July", nil, berlin.day(2023, 7, 1))
        assertRange("before 2024-03-01", nil, berlin.day(2024, 3, 1))
        assertRange("after 2024-03-01", berlin.day(2024, 3, 2), nil)
        assertRange("after March", berlin.day(2024, 4, 1), nil)
        assertRange("since Monday", berlin.day(2024, 6, 10), nil)
        assertRange("since March 2024", berlin.day(2024, 3, 1), nil)
        assertRange("since last week", berlin.day(2024, 6, 8), nil)
        assertRange("on 2024-03-01", berlin.day(2024, 3, 1), berlin.day(2024, 3, 2))
        assertRange("on 2024/3/1", berlin.day(2024, 3, 1), berlin.day(2024, 3, 2))
        assertRange("until 2023", nil, berlin.day(2024, 1, 1))
        assertRange("on Saturday", berlin.day(2024, 6, 15), berlin.day(2024, 6, 16))
        assertRange("last Monday", berlin.day(2024, 6, 10), berlin.day(2024, 6, 11))
        assertRange("last Saturday", berlin.day(2024, 6, 8), berlin.day(2024, 6, 9))
    }

    func test_date_agoIsTheCalendarPeriodThatContainsIt() {
        assertRange("3 days ago", berlin.day(2024, 6, 12), berlin.day(2024, 6, 13))
        assertRange("a week ago", berlin.day(2024, 6, 3), berlin.day(2024, 6, 10))
        assertRange("2 months ago", berlin.day(2024, 4, 1), berlin.day(2024, 5, 1))
        assertRange("one year ago", berlin.day(2023, 1, 1), berlin.day(2024, 1, 1))
    }

    func test_date_olderAndNewerThanAreExactInstants() {
        assertRange("older than a month", nil, berlin.time(2024, 5, 15, 10))
        assertRange("newer than 3 days", berlin.time(2024, 6, 12, 10), nil)
    }

    func test_date_operators() {
        assertRange("after:2024-03-01", berlin.day(2024, 3, 1), nil)
        assertRange("before:2024/03/01", nil, berlin.day(2024, 3, 1))
        assertRange("after:2024-01-01 before:2024-02-01", berlin.day(2024, 1, 1), berlin.day(2024, 2, 1))
        assertRange("older_than:3d", nil, berlin.time(2024, 6, 12, 10))
        assertRange("newer_than:2w", berlin.time(2024, 6, 1, 10), nil)
        assertRange("older_than:1m", nil, berlin.time(2024, 5, 15, 10))
        assertRange("newer_than:1y", berlin.time(2023, 6, 15, 10), nil)
    }

    func test_date_invalidDatesStayText() {
        for text in ["after:2024-02-30", "before:tomorrow", "older_than:3x", "on 2024-13-01", "after 24-03-01"] {
            let query = parse(text)
            XCTAssertNil(query.filters.dateRange, text)
            XCTAssertEqual(query.text, text)
        }
    }

    func test_date_dayBoundariesFollowTheInjectedTimeZone() {
        // The same instant, 2024-06-14 23:30 UTC: already Saturday in Berlin, still Friday in Los Angeles.
        let instant = Date(timeIntervalSince1970: 1_718_407_800)
        let inBerlin = berlin.parser(at: instant).parse("today").filters.dateRange
        let inLA = losAngeles.parser(at: instant).parse("today").filters.dateRange
        XCTAssertEqual(inBerlin, DateRange(start: berlin.day(2024, 6, 15), end: berlin.day(2024, 6, 16)))
        XCTAssertEqual(inLA, DateRange(start: losAngeles.day(2024, 6, 14), end: losAngeles.day(2024, 6, 15)))
        XCTAssertEqual(berlin.day(2024, 6, 15).timeIntervalSince1970, 1_718_402_400)
        XCTAssertEqual(losAngeles.day(2024, 6, 14).timeIntervalSince1970, 1_718_348_400)
    }

    func test_date_losAngelesPinnedClock() {
        let parser = losAngeles.parser
        XCTAssertEqual(parser.parse("last week").filters.dateRange,
                       DateRange(start: losAngeles.day(2024, 6, 8), end: nil))
        XCTAssertEqual(parser.parse("in January").filters.dateRange,
                       DateRange(start: losAngeles.day(2024, 1, 1), end: losAngeles.day(2024, 2, 1)))
        XCTAssertEqual(parser.parse("yesterday").filters.dateRange,
                       DateRange(start: losAngeles.day(2024, 6, 14), end: losAngeles.day(2024, 6, 15)))
        XCTAssertEqual(parser.parse("after:2024-03-01").filters.dateRange,
                       DateRange(start: losAngeles.day(2024, 3, 1), end: nil))
    }

    func test_date_rangesFromToAndBetween() {
        assertRange("from March to May", berlin.day(2024, 3, 1), berlin.day(2024, 6, 1))
        assertRange("from 2024-01-01 until 2024-01-31", berlin.day(2024, 1, 1), berlin.day(2024, 2, 1))
        assertRange("between 2023 and 2024", berlin.day(2023, 1, 1), berlin.day(2025, 1, 1))
        assertRange("from December to February", berlin.day(2023, 12, 1), berlin.day(2024, 3, 1))
        XCTAssertEqual(parse("between friends").text, "between friends")
        XCTAssertEqual(parse("between March").text, "between March")
    }

    func test_date_twoDatePhrasesIntersect() {
        assertRange("in 2023 after 2023-06-30", berlin.day(2023, 7, 1), berlin.day(2024, 1, 1))
    }

    // MARK: - Attachments

    func test_attachment_phrases() {
        for text in ["with attachments", "with attachment", "has attachment", "has attachments", "with files",
                     "with an attachment", "has:attachment"] {
            let query = parse("budget \(text)")
            XCTAssertEqual(query.filters.hasAttachment, true, text)
            XCTAssertNil(query.filters.attachmentType, text)
            XCTAssertEqual(query.text, "budget", text)
        }
    }

    func test_attachment_typedPhrasesSetTheType() {
        let cases = ["with a pdf": "pdf", "with pdf": "pdf", "with pdfs": "pdf", "with docx": "docx",
                     "with xlsx": "xlsx", "with a zip": "zip", "with images": "image", "with png": "png",
                     "with pdf attachments": "pdf", "pdf attachments": "pdf", "has:pdf": "pdf",
                     "with a spreadsheet": "spreadsheet", "with documents": "document", "with docs": "document",
                     "with a presentation": "presentation", "has:spreadsheet": "spreadsheet",
                     "has:document": "document", "has:presentation": "presentation", "has:image": "image",
                     "has:video": "video", "has:excel": "spreadsheet", "has:jpeg": "jpg", "with ics": "calendar"]
        for (text, type) in cases {
            let query = parse(text)
            XCTAssertEqual(query.filters.hasAttachment, true, text)
            XCTAssertEqual(query.filters.attachmentType, type, text)
            XCTAssertEqual(query.text, "", text)
        }
    }

    /// `filename:` is part of a name, as in Gmail; the kinds of prose stay prose where a reading competes.
    func test_attachment_filenameAndOperatorOnlyKinds() {
        for (text, name) in ["filename:pdf": "pdf", "filename:Q3-Budget.xlsx": "q3-budget.xlsx",
                             "filename:\"annual report\"": "annual report", "filename: invoice": "invoice"] {
            let query = parse(text)
            XCTAssertEqual(query.filters.hasAttachment, true, text)
            XCTAssertEqual(query.filters.attachmentName, name, text)
            XCTAssertNil(query.filters.attachmentType, text)
            XCTAssertEqual(query.text, "", text)
        }
        XCTAssertNil(parse("call with video link").filters.attachmentType)
        XCTAssertNil(parse("talk with slides").filters.attachmentType)
        XCTAssertEqual(parse("-filename:invoice").filters.excluded,
                       [SearchFilters(hasAttachment: true, attachmentName: "invoice")])
    }

    func test_size_operators() {
        let mb = 1024 * 1024
        let cases: [String: (Int?, Int?)] = [
            "larger:10M": (10 * mb, nil), "larger:10mb": (10 * mb, nil), "smaller:500K": (nil, 500 * 1024),
            "size:1000000": (1_000_000, nil), "larger:1.5M": (Int(1.5 * Double(mb)), nil), "larger:2G": (2 * 1024 * mb, nil),
            "larger:1M smaller:5M": (mb, 5 * mb), "larger:1M larger:3M": (3 * mb, nil),
        ]
        for (text, (min, max)) in cases {
            let query = parse(text)
            XCTAssertEqual(query.filters.minSize, min, text)
            XCTAssertEqual(query.filters.maxSize, max, text)
            XCTAssertEqual(query.text, "", text)
        }
        for text in ["larger:big", "larger:", "smaller:-5M", "larger:1e9", "larger:10T", "larger:99999999999999999G"] {
            let query = parse(text)
            XCTAssertNil(query.filters.minSize, text)
            XCTAssertNil(query.filters.maxSize, text)
        }
        XCTAssertEqual(parse("-larger:10M").filters.excluded, [SearchFilters(minSize: 10 * mb)])
    }

    func test_attachment_withOtherWordsIsText() {
        XCTAssertEqual(parse("meeting with john").text, "meeting with john")
        XCTAssertNil(parse("meeting with john").filters.hasAttachment)
        XCTAssertEqual(parse("attachments policy").text, "attachments policy")
        XCTAssertEqual(parse("attachments from john").filters, SearchFilters(sender: "john", hasAttachment: true))
    }

    // MARK: - Category

    func test_category_forms() {
        XCTAssertEqual(parse("promotions").filters.category, .promotions)
        XCTAssertEqual(parse("social emails").filters.category, .social)
        XCTAssertEqual(parse("social emails").text, "")
        XCTAssertEqual(parse("discount in promotions").filters.category, .promotions)
        XCTAssertEqual(parse("discount in promotions").text, "discount")
        XCTAssertEqual(parse("category:forums").filters.category, .forums)
        XCTAssertEqual(parse("updates from github").filters, SearchFilters(sender: "github", category: .updates))
        XCTAssertEqual(parse("primary unread").filters, SearchFilters(category: .primary, isRead: false))
    }

    func test_category_wordsInsideProseAreText() {
        for text in ["social security forms", "updates on the project", "project updates", "primary school",
                     "forums moderation policy", "category:nonsense"] {
            let query = parse(text)
            XCTAssertNil(query.filters.category, text)
            XCTAssertEqual(query.text, text)
        }
    }

    // MARK: - Read and starred status

    func test_readStatus_forms() {
        XCTAssertEqual(parse("unread").filters.isRead, false)
        XCTAssertEqual(parse("unread emails").text, "")
        XCTAssertEqual(parse("budget unread").filters.isRead, false)
        XCTAssertEqual(parse("read").filters.isRead, true)
        XCTAssertEqual(parse("read emails from john").filters, SearchFilters(sender: "john", isRead: true))
        XCTAssertEqual(parse("read from john").filters, SearchFilters(sender: "john", isRead: true))
        XCTAssertEqual(parse("budget from john read").filters, SearchFilters(sender: "john", isRead: true))
        XCTAssertEqual(parse("is:unread").filters.isRead, false)
        XCTAssertEqual(parse("is:read").filters.isRead, true)
        XCTAssertEqual(parse("is:starred").filters.isStarred, true)
        XCTAssertEqual(parse("starred budget").filters.isStarred, true)
        XCTAssertEqual(parse("starred budget").text, "budget")
    }

    func test_readStatus_readInsideProseIsText() {
        for text in ["read the budget report", "books I read", "please read carefully", "read budget report"] {
            let query = parse(text)
            XCTAssertNil(query.filters.isRead, text)
            XCTAssertEqual(query.text, text)
        }
    }

    // MARK: - Folder

    func test_folder_forms() {
        let cases = ["in sent": "sent", "in inbox": "inbox", "in archive": "archive", "in drafts": "drafts",
                     "in trash": "trash", "in spam": "spam", "in the inbox": "inbox", "in:Work": "work",
                     "label:Receipts": "receipts", "in:\"Project X\"": "project x"]
        for (text, folder) in cases {
            let query = parse("budget \(text)")
            XCTAssertEqual(query.filters.folder, folder, text)
            XCTAssertEqual(query.text, "budget", text)
        }
    }

    func test_folder_otherWordsAfterInAreText() {
        XCTAssertEqual(parse("meeting in Berlin").text, "meeting in Berlin")
        XCTAssertNil(parse("meeting in Berlin").filters.folder)
    }

    // MARK: - Mixed and ambiguous

    func test_mixed_everythingAtOnce() {
        let query = parse("unread emails from John Smith to sarah in inbox with a pdf last month budget")
        XCTAssertEqual(query.filters, SearchFilters(
            sender: "John Smith", recipient: "sarah",
            dateRange: DateRange(start: berlin.day(2024, 5, 15), end: nil),
            hasAttachment: true, folder: "inbox", isRead: false, attachmentType: "pdf"))
        XCTAssertEqual(query.text, "budget")
    }

    func test_mixed_operatorsAndWords() {
        let query = parse("is:unread category:promotions from:shop@example.com coupon after:2024-01-01")
        XCTAssertEqual(query.filters, SearchFilters(
            sender: "shop@example.com", dateRange: DateRange(start: berlin.day(2024, 1, 1), end: nil),
            category: .promotions, isRead: false))
        XCTAssertEqual(query.text, "coupon")
    }

    func test_ambiguity_inMonthFollowedByTextIsText() {
        XCTAssertEqual(parse("meeting in January notes").text, "meeting in January notes")
        XCTAssertNil(parse("meeting in January notes").filters.dateRange)
        assertRange("meeting in January", berlin.day(2024, 1, 1), berlin.day(2024, 2, 1), text: "meeting")
        let query = parse("notes in January from john")
        XCTAssertEqual(query.filters.sender, "john")
        XCTAssertNotNil(query.filters.dateRange)
        XCTAssertEqual(query.text, "notes")
    }

    func test_ambiguity_demotionRunsThroughChainsOfAmbiguousWords() {
        let query = parse("read updates on the project")
        XCTAssertTrue(query.filters.isEmpty)
        XCTAssertEqual(query.text, "read updates on the project")
        XCTAssertEqual(parse("read social promotions").filters.isRead, true)
        let long = String(repeating: "read social ", count: 300) + "budget"
        XCTAssertTrue(parse(long).filters.isEmpty)
        XCTAssertEqual(parse(long).text, long.trimmingCharacters(in: .whitespaces))
    }

    func test_ambiguity_mailNounsAreTextWithoutAFilter() {
        XCTAssertEqual(parse("emails").text, "emails")
        XCTAssertEqual(parse("budget emails").text, "budget emails")
        XCTAssertEqual(parse("emails from john").text, "")
    }

    // MARK: - Quotes, punctuation, whitespace

    func test_quotedPhrasesPassThroughUntouched() {
        let query = parse("\"from john\" last week")
        XCTAssertNil(query.filters.sender)
        XCTAssertEqual(query.text, "\"from john\"")
        XCTAssertNotNil(query.filters.dateRange)
        let curly = parse("\u{201C}unread promotions\u{201D}")
        XCTAssertEqual(curly.text, "\u{201C}unread promotions\u{201D}")
        XCTAssertTrue(curly.filters.isEmpty)
        XCTAssertEqual(parse("\"budget  report\"   from sarah").text, "\"budget  report\"")
    }

    func test_unbalancedQuoteProtectsTheRest() {
        let query = parse("from john \"last week with attachments")
        XCTAssertEqual(query.filters, SearchFilters(sender: "john"))
        XCTAssertEqual(query.text, "\"last week with attachments")
    }

    func test_emptyAndWhitespaceQueries() {
        for text in ["", " ", "\t\n  ", "\u{3000}"] {
            let query = parse(text)
            XCTAssertEqual(query.text, "")
            XCTAssertTrue(query.filters.isEmpty)
        }
    }

    func test_whitespaceIsNormalisedAndCaseKept() {
        let query = parse("  Budget\t\tReport \n from   Sarah  ")
        XCTAssertEqual(query.text, "Budget Report")
        XCTAssertEqual(query.filters.sender, "Sarah")
    }

    func test_scopeIsPassedThrough() {
        XCTAssertEqual(berlin.parser.parse("budget", scope: .currentFolder(folderId: 7)).scope, .currentFolder(folderId: 7))
        XCTAssertEqual(parse("budget").scope, .allMail)
    }

    func test_unknownOperatorsStayText() {
        XCTAssertEqual(parse("foo:bar -foo:baz").text, "foo:bar -foo:baz")
        XCTAssertEqual(parse("is:important").text, "is:important")
        XCTAssertEqual(parse("foo:bar -from:john").text, "foo:bar")
    }

    // MARK: - Garbage input

    func test_garbageInputParsesWithoutCrashing() {
        let inputs = [
            "budget AND NOT (report OR \"x\") NEAR(a b, 3) col:* ^start *",
            "\"\"\"", "\"", "from", "to", "from:", "in:", "with", "last", "3", "in the last", "older than",
            "📎 from 😀 with 🎉 attachments", "from: \"", "“from john", "a\u{0301} \u{0301} \u{200B}",
            "from John John John John John John", "after:9999-99-99", "99999 days ago", "9999 years ago",
            "before:1900-01-01 after:2199-12-31", String(repeating: "from ", count: 500),
            String(repeating: "x", count: 10_240), String(repeating: "é🎉 from: \"a ", count: 800),
            String(repeating: "read social ", count: 850) + "budget", "from " + String(repeating: "John ", count: 2000),
        ]
        for input in inputs {
            let query = parse(input)
            XCTAssertTrue(QueryParsingProperties.textIsDrawnFromInput(query.text, input), input)
        }
    }

    func test_property_randomInputNeverCrashesAndNeverInventsText() {
        var generator = QueryParsingRandomInput(seed: 0x5EED_2024)
        for _ in 0..<10_000 {
            let input = generator.next()
            let query = parse(input)
            if !QueryParsingProperties.textIsDrawnFromInput(query.text, input) {
                XCTFail("invented text for input \(input.debugDescription): \(query.text.debugDescription)")
                return
            }
        }
    }
}
