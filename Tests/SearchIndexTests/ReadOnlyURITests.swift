import Foundation
@testable import SearchIndex
import XCTest

/// The read-only URI of the attached mail database, written out by hand, is what Foundation's
/// percent-encoding gives.
final class ReadOnlyURITests: XCTestCase {
    func testSameAsFoundationsPercentEncoding() {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let paths = ["/home/me/.local/share/mailsearch/mail.sqlite", "/tmp/with space/mail.sqlite", "/tmp/100%/a?b#c.sqlite",
                     "/tmp/Ünïcödé/メール/mail.sqlite", "relative/dir/mail.sqlite", "/tmp/!$&'()*+,-.:;=@_~/x", "/tmp/\"<>[]^`{|}\\"]
        for path in paths {
            XCTAssertEqual(SearchDatabase.readOnlyURI(path),
                           "file:" + path.addingPercentEncoding(withAllowedCharacters: allowed)! + "?mode=ro", path)
        }
    }
}
