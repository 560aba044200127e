import XCTest
@testable import HTMLSanitizer

final class HTMLSanitizerTests: XCTestCase {
    private func sanitize(_ html: String, remote: Bool = false) -> SanitizedHTML {
        let options = SanitizeOptions(allowRemoteImages: remote, cidURL: { "/api/emails/12/cid/" + $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! })
        let result = HTMLSanitizer.sanitize(html, options: options)
        XCTAssertEqual(OutputVerifier.problems(in: result.html, allowRemoteImages: remote), [], html)
        return result
    }

    // MARK: Formatting that survives

    func testSafeFormattingSurvives() {
        let html = """
        <html><head><title>Hi</title><style>p{color:red}</style></head><body>
        <h1 align="center">News</h1><p>Hello <b>bold</b>, <i>italic</i>, <u>u</u>, <s>s</s>, <strong>strong</strong>, \
        <em>em</em>, <small>small</small>, H<sub>2</sub>O, x<sup>2</sup><br>line</p>
        <ul><li>one</li><li>two</li></ul><ol start="3"><li>three</li></ol>
        <blockquote>quoted</blockquote><pre>code\n  indented</pre><hr>
        <font color="#ff0000" face="Arial" size="2">font</font><center>c</center>
        </body></html>
        """
        let result = sanitize(html)
        for fragment in ["<h1 align=\"center\">News</h1>", "<b>bold</b>", "<i>italic</i>", "<u>u</u>", "<s>s</s>",
                         "<strong>strong</strong>", "<em>em</em>", "<small>small</small>", "<sub>2</sub>", "<sup>2</sup>",
                         "<br>line", "<ul><li>one</li><li>two</li></ul>", "<ol start=\"3\"><li>three</li></ol>",
                         "<blockquote>quoted</blockquote>", "<pre>\ncode\n  indented</pre>", "<hr>",
                         "<font color=\"#ff0000\" face=\"Arial\" size=\"2\">font</font>", "<center>c</center>"] {
            XCTAssertTrue(result.html.contains(fragment), "\(fragment) missing from \(result.html)")
        }
        XCTAssertFalse(result.html.contains("Hi"), "the title is not body text")
        XCTAssertFalse(result.html.contains("color:red"))
        XCTAssertFalse(result.isEmpty)
    }

    func testTablesKeepTheirLayoutAttributes() {
        let html = "<table width=\"600\" border=\"0\" cellpadding=\"4\" cellspacing=\"0\" bgcolor=\"#eeeeee\" background=\"https://t.example/bg.png\">"
            + "<tr><td colspan=\"2\" valign=\"top\" width=\"50%\" nowrap style=\"padding: 4px; color: #333\">cell</td></tr></table>"
        XCTAssertEqual(
            sanitize(html).html,
            "<table width=\"600\" border=\"0\" cellpadding=\"4\" cellspacing=\"0\" bgcolor=\"#eeeeee\"><tbody><tr>"
                + "<td colspan=\"2\" valign=\"top\" width=\"50%\" nowrap style=\"padding: 4px; color: #333\">cell</td></tr></tbody></table>"
        )
    }

    func testBodyAttributesMoveToADiv() {
        XCTAssertEqual(sanitize("<body bgcolor=\"#fff\" onload=\"x()\"><p>x</p></body>").html, "<div bgcolor=\"#fff\"><p>x</p></div>")
        XCTAssertEqual(sanitize("<body onload=\"x()\"><p>x</p></body>").html, "<p>x</p>")
    }

    func testUnknownAndUnwrappedElementsKeepTheirText() {
        XCTAssertEqual(sanitize("<p>a<o:p>b</o:p><label>c</label><form action=\"https://x.example\">d<input value=e></form></p>").html, "<p>abc</p>d<p></p>",
                       "the form closes the paragraph; its </p> opens an empty one")
        XCTAssertEqual(sanitize("<xml><o:OfficeDocumentSettings>96</o:OfficeDocumentSettings></xml><p>x</p>").html, "<p>x</p>")
    }

    // MARK: Text

    func testTextIsEscaped() {
        let result = sanitize("<p>1 &lt; 2 &amp;&amp; 3 &gt; 2 \"quoted\" 'single' &lt;script&gt;</p>")
        XCTAssertEqual(result.html, "<p>1 &lt; 2 &amp;&amp; 3 &gt; 2 \"quoted\" 'single' &lt;script&gt;</p>")
        XCTAssertEqual(sanitize("Tom &amp; Jerry: 5 > 3, café ☕").html, "Tom &amp; Jerry: 5 &gt; 3, café ☕")
    }

    func testAttributeValuesAreEscaped() {
        XCTAssertEqual(
            sanitize("<img src=\"data:image/png;base64,AA==\" alt=\"a&quot;b'c<d>&amp;\">").html,
            "<img src=\"data:image/png;base64,AA==\" alt=\"a&quot;b&#39;c&lt;d&gt;&amp;\">"
        )
    }

    func testInvalidAttributeValuesAreDropped() {
        XCTAssertEqual(sanitize("<td width=\"100px;x:y\" bgcolor=\"red;background:url(x)\" colspan=\"2x\" align=\"left\">x</td>").html, "x")
        XCTAssertEqual(sanitize("<table><tr><td width=\"100px;x\" bgcolor=\"red;x\" colspan=\"2x\" align=\"left\">x</td></tr></table>").html,
                       "<table><tbody><tr><td align=\"left\">x</td></tr></tbody></table>")
    }

    // MARK: Links

    func testLinksOpenInANewTabWithoutOpenerOrReferrer() {
        XCTAssertEqual(
            sanitize("<a href=\"https://example.com/a?b=1&amp;c=2\" title=\"t\" target=\"_self\">x</a>").html,
            "<a href=\"https://example.com/a?b=1&amp;c=2\" title=\"t\" target=\"_blank\" rel=\"noopener noreferrer\">x</a>"
        )
        XCTAssertEqual(sanitize("<a href=\"mailto:a@example.com\">m</a>").html,
                       "<a href=\"mailto:a@example.com\" target=\"_blank\" rel=\"noopener noreferrer\">m</a>")
        XCTAssertEqual(sanitize("<a href=\"//example.com/x\">p</a>").html,
                       "<a href=\"https://example.com/x\" target=\"_blank\" rel=\"noopener noreferrer\">p</a>")
        XCTAssertEqual(sanitize("<a href=\"\n https://example.com/\t\">w</a>").html,
                       "<a href=\"https://example.com/\" target=\"_blank\" rel=\"noopener noreferrer\">w</a>")
        XCTAssertEqual(sanitize("<a name=\"top\">anchor</a>").html, "<a>anchor</a>")
    }

    // MARK: Remote images

    func testRemoteImagesAreBlockedByDefaultWithAPlaceholder() {
        let html = "<p><img src=\"https://images.example/logo.png\" alt=\"Logo\" width=\"120\" height=\"40\"> <img src=\"http://images.example/b.jpg\"></p>"
        let blocked = sanitize(html)
        XCTAssertEqual(blocked.remoteImagesBlocked, 2)
        XCTAssertEqual(blocked.trackersBlocked, 0)
        XCTAssertFalse(blocked.html.contains("images.example"), "no network request: \(blocked.html)")
        XCTAssertFalse(blocked.html.contains("<img"))
        XCTAssertTrue(blocked.html.contains(
            "<span class=\"ms-remote-image\" title=\"Remote image blocked: Logo\" style=\"display: inline-block; width: 120px; height: 40px\">Logo</span>"
        ), blocked.html)
        XCTAssertFalse(blocked.isEmpty)

        let allowed = sanitize(html, remote: true)
        XCTAssertEqual(allowed.remoteImagesBlocked, 0)
        XCTAssertEqual(allowed.html,
                       "<p><img src=\"https://images.example/logo.png\" alt=\"Logo\" width=\"120\" height=\"40\"> <img src=\"http://images.example/b.jpg\"></p>")
    }

    func testCSSNeverLoadsRemoteImagesEvenWhenAllowed() {
        for remote in [false, true] {
            let result = sanitize("<div style=\"background-image: url(https://images.example/bg.png); color: #123\">x</div>", remote: remote)
            XCTAssertEqual(result.html, "<div style=\"color: #123\">x</div>")
        }
    }

    func testSrcsetIsDroppedEvenWhenRemoteImagesAreAllowed() {
        let result = sanitize("<img src=\"https://images.example/a.png\" srcset=\"https://images.example/a2.png 2x\">", remote: true)
        XCTAssertEqual(result.html, "<img src=\"https://images.example/a.png\">")
    }

    // MARK: Tracking pixels

    func testTrackingPixelsAreStrippedInBothModes() {
        let pixels = [
            "<img src=\"https://news.example/open?id=1\" width=\"1\" height=\"1\">",
            "<img src=\"https://news.example/open?id=2\" width=\"0\" height=\"0\" alt=\"\">",
            "<img src=\"https://news.example/open?id=3\" style=\"width:1px;height:1px\">",
            "<img src=\"https://news.example/open?id=4\" width=\"1px\">",
            "<img src=\"https://news.example/open?id=5\" style=\"display:none\">",
            "<img src=\"https://news.example/open?id=6\" style=\"visibility: hidden !important\">",
            "<img src=\"https://news.example/open?id=7\" style=\"opacity:0\">",
            "<div style=\"display: none\"><img src=\"https://news.example/open?id=8\" width=\"600\"></div>",
            "<div hidden><p><img src=\"https://news.example/open?id=9\"></p></div>",
            "<div style=\"max-height:0;overflow:hidden\"><img src=\"https://news.example/open?id=10\"></div>",
            "<img src=\"https://us12.list-manage.com/track/open.php?u=abc&id=def\" width=\"600\" height=\"200\">",
            "<img src=\"https://www.google-analytics.com/collect?v=1&t=event\">",
            "<img src=\"https://u123456.ct.sendgrid.net/wf/open?upn=xyz\">",
            "<img src=\"//mailtrack.io/trace/mail/abc.png\">",
            "<img src=\"https://user:pw@AD.DOUBLECLICK.NET.:443/x\">",
            "<img src=\"https://news.example/open?id=11\" height=\"0\" width=\"600\">",
        ]
        for remote in [false, true] {
            let result = sanitize("<p>Hello</p>" + pixels.joined(), remote: remote)
            XCTAssertEqual(result.trackersBlocked, pixels.count, "remote \(remote): \(result.html)")
            XCTAssertEqual(result.remoteImagesBlocked, 0)
            for host in ["news.example", "list-manage", "google-analytics", "sendgrid", "mailtrack", "doubleclick"] {
                XCTAssertFalse(result.html.lowercased().contains(host), "\(host) in \(result.html)")
            }
            XCTAssertFalse(result.html.contains("<img"))
            XCTAssertFalse(result.isEmpty)
        }
    }

    func testSpacersAndLocalImagesAreNotTrackers() {
        let result = sanitize("<img src=\"https://news.example/spacer.gif\" width=\"1\" height=\"20\">"
                              + "<img src=\"data:image/gif;base64,R0lGODlhAQABAAAAACw=\" width=\"1\" height=\"1\">")
        XCTAssertEqual(result.trackersBlocked, 0)
        XCTAssertEqual(result.remoteImagesBlocked, 1)
        XCTAssertTrue(result.html.contains("<img src=\"data:image/gif;base64,R0lGODlhAQABAAAAACw=\" width=\"1\" height=\"1\">"))
        XCTAssertFalse(TrackerDomains.contains(host: "notdoubleclick.net"))
        XCTAssertTrue(TrackerDomains.contains(host: "ad.doubleclick.net"))
    }

    // MARK: cid: and data: images

    func testCidImagesAreServedFromTheMessage() {
        let result = sanitize("<img src=\"cid:logo@example.com\" alt=\"logo\"><img src=\"CID:part1%2Eabc\">")
        XCTAssertEqual(result.html,
                       "<img src=\"/api/emails/12/cid/logo%40example%2Ecom\" alt=\"logo\"><img src=\"/api/emails/12/cid/part1%2Eabc\">")
        XCTAssertEqual(result.remoteImagesBlocked, 0)
        XCTAssertFalse(result.isEmpty)

        let seen = SeenReferences()
        let dropped = HTMLSanitizer.sanitize("<p>x</p><img src=\"cid:unknown\"><img src=\"cid:\">", options: SanitizeOptions(cidURL: { seen.append($0); return nil }))
        XCTAssertEqual(dropped.html, "<p>x</p>")
        XCTAssertEqual(seen.values, ["unknown"])
    }

    func testDataImagesOnlyForRasterTypes() {
        XCTAssertEqual(sanitize("<img src=\"data:image/png;base64,iVBORw0KGgo=\">").html, "<img src=\"data:image/png;base64,iVBORw0KGgo=\">")
        XCTAssertEqual(sanitize("<img src=\"DATA:IMAGE/JPEG;base64,/9j/\">").html, "<img src=\"DATA:IMAGE/JPEG;base64,/9j/\">")
        XCTAssertEqual(sanitize("<img src=\"data:image/webp;base64,UklG\">").html, "<img src=\"data:image/webp;base64,UklG\">")
        for source in ["data:image/svg+xml;base64,PHN2Zz4=", "data:text/html,<b>x</b>", "data:,x", "data:image/png"] {
            XCTAssertEqual(sanitize("<img src=\"\(source)\">").html, "", source)
        }
    }

    // MARK: CSS

    func testInlineCSSIsFiltered() {
        let result = sanitize("<p style=\"color: red; font-family: 'Helvetica Neue', Arial; position: absolute; z-index: 9; "
                              + "background: rgb(1, 2, 3); width: expression(alert(1)); behavior: url(x.htc); font-size: 14px !important\">x</p>")
        XCTAssertEqual(result.html,
                       "<p style=\"color: red; font-family: &#39;Helvetica Neue&#39;, Arial; background: rgb(1, 2, 3); font-size: 14px !important\">x</p>")
        XCTAssertEqual(sanitize("<p style=\"color: red; font-family: a\\62 c\">x</p>").html, "<p>x</p>", "escapes drop the attribute")
        XCTAssertEqual(sanitize("<p style=\"color: red; font-family: 'unbalanced\">x</p>").html, "<p style=\"color: red\">x</p>")
        XCTAssertEqual(sanitize("<p style=\"color:/**/red\">x</p>").html, "<p style=\"color: red\">x</p>")
    }

    // MARK: Empty results

    func testEmptyResultsAreReported() {
        for html in ["", "   ", "<script>alert(1)</script>", "<style>p{}</style>", "<p>&nbsp;</p><br>\u{200B}",
                     "<div style=\"display:none\">preheader only</div>", "<img src=\"javascript:alert(1)\">",
                     "<iframe src=\"https://x.example\"></iframe>", "<!-- only a comment -->",
                     "<img src=\"https://t.example/p.gif\" width=\"1\" height=\"1\">"] {
            XCTAssertTrue(sanitize(html).isEmpty, html)
        }
        for html in ["<p>x</p>", "<img src=\"https://images.example/a.png\">", "<img src=\"data:image/png;base64,AA==\">",
                     "<div style=\"display:none\">pre</div>visible"] {
            XCTAssertFalse(sanitize(html).isEmpty, html)
        }
    }

    func testPreservesLeadingNewlineOfPre() {
        let once = sanitize("<pre>\n\nx</pre>").html
        XCTAssertEqual(once, "<pre>\n\nx</pre>")
        XCTAssertEqual(sanitize(once).html, once)
    }
}

private final class SeenReferences: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ value: String) { lock.withLock { list.append(value) } }
    var values: [String] { lock.withLock { list } }
}
