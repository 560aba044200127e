import MailModel
import SearchIndex

/// The fixed word lists the query parser recognises. Immutable tables, shared by every parse,
/// looked up by binary search (`WordList`, `WordTable`: no hashing to set up in a one-shot search).
enum QueryVocabulary {
    /// Nouns that name mail itself ("unread emails", "emails from john"); noise next to filters.
    static let mailNouns: WordList = [
        "email", "emails", "e-mail", "e-mails", "mail", "mails", "message", "messages",
        "conversation", "conversations", "thread", "threads",
    ]

    /// Words after "from"/"to" that show the phrase is prose, not a person ("notes from the offsite").
    static let stopWords: WordList = [
        "a", "an", "the", "my", "our", "your", "his", "her", "their", "its", "this", "that", "these",
        "those", "me", "us", "you", "him", "them", "it", "there", "here", "home", "work", "now", "then",
        "and", "or", "of", "to", "in", "on", "at", "by", "for", "with", "about", "all", "every", "each",
        "some", "any", "what", "which", "who", "whom", "where", "when", "how", "why", "be", "do", "go",
        "get", "make", "see", "know", "have", "has", "is", "are", "was", "were", "time", "scratch",
        "start", "end", "top", "bottom", "day", "week", "month", "year", "one", "two", "three",
        "i", "we", "he", "she", "they", "not", "no", "yes", "so", "as", "if", "but", "up", "down", "out",
        "over", "into", "onto", "upon", "via", "per", "than",
    ]

    /// Words that start a filter phrase: a capitalised name after "from"/"to" stops before them,
    /// and a lower-case word among them is never taken as a person.
    static let filterWords: WordList = [
        "from", "to", "with", "has", "have", "having", "in", "on", "before", "after", "since", "until",
        "till", "last", "past", "this", "today", "yesterday", "unread", "read", "starred", "subject",
        "older", "newer", "ago", "during", "within", "between", "attachment", "attachments", "files",
        "promotions", "social", "updates", "forums", "primary",
    ]

    /// Verbs that may precede a recipient phrase and belong to it ("sent to sarah").
    static let recipientVerbs: WordList = [
        "sent", "send", "wrote", "written", "forwarded", "replied", "addressed", "emailed", "mailed",
    ]

    /// Category words (FR-SEARCH-02), singular forms included.
    static let categories: WordTable<AICategory> = [
        "promotions": .promotions, "promotion": .promotions, "promotional": .promotions,
        "social": .social,
        "updates": .updates, "update": .updates,
        "forums": .forums, "forum": .forums,
        "primary": .primary,
    ]

    /// Folder names understood after "in" ("in sent"); the folder filter keeps the word as typed.
    static let folders: WordList = [
        "inbox", "sent", "archive", "archived", "drafts", "draft", "trash", "bin", "spam", "junk",
        "outbox", "starred", "important",
    ]

    /// Words meaning "an attachment of any type".
    static let attachmentWords: WordList = [
        "attachment", "attachments", "file", "files", "attached",
    ]

    /// Attachment kinds after "with"/"has" and the `attachmentType` each one sets: a kind
    /// (`EmailFilterSQL.attachmentKinds`: "spreadsheet" is XLS, XLSX, ODS, CSV…) or one format.
    static let attachmentTypes: WordTable<String> = [
        "pdf": "pdf", "pdfs": "pdf",
        "doc": "doc", "docx": "docx", "docs": "document", "document": "document", "documents": "document",
        "xls": "xls", "xlsx": "xlsx", "spreadsheet": "spreadsheet", "spreadsheets": "spreadsheet",
        "ppt": "ppt", "ppts": "ppt", "pptx": "pptx", "presentation": "presentation",
        "presentations": "presentation",
        "zip": "zip", "zips": "zip",
        "image": "image", "images": "image", "photo": "image", "photos": "image",
        "picture": "image", "pictures": "image",
        "jpg": "jpg", "jpgs": "jpg", "jpeg": "jpg", "png": "png", "pngs": "png",
        "csv": "csv", "txt": "txt", "ics": "calendar", "calendar": "calendar",
    ]

    /// Kinds read only after `has:`, where no prose reading competes ("a call with video").
    static let operatorAttachmentTypes: WordTable<String> = [
        "audio": "audio", "video": "video", "archive": "archive", "slides": "presentation",
        "invite": "calendar", "invitation": "calendar", "word": "document", "excel": "spreadsheet",
        "powerpoint": "presentation",
    ]

    static let months: WordTable<Int> = [
        "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
        "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
        "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
        "december": 12, "dec": 12,
    ]

    /// Weekday names to `Calendar` weekday numbers (Sunday = 1).
    static let weekdays: WordTable<Int> = [
        "sunday": 1, "sun": 1, "monday": 2, "mon": 2, "tuesday": 3, "tue": 3, "tues": 3,
        "wednesday": 4, "wed": 4, "thursday": 5, "thu": 5, "thur": 5, "thurs": 5,
        "friday": 6, "fri": 6, "saturday": 7, "sat": 7,
    ]

    static let numberWords: WordTable<Int> = [
        "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
        "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    ]
}
