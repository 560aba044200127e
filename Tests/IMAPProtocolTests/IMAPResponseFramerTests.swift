import XCTest
@testable import IMAPProtocol

/// The framer cuts the same responses out of a stream however its reads are chunked, keeps
/// literal bytes out of its line scanning, and refuses what crosses its limits with a typed error.
final class IMAPResponseFramerTests: XCTestCase {
    private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    func testLinesAreCutAtCRLFWithoutTheLineEnd() throws {
        XCTAssertEqual(try frames(of: bytes("* 3 EXISTS\r\nA1 OK done\r\n")).map(\.text), ["* 3 EXISTS", "A1 OK done"])
    }

    func testALiteralContinuesTheResponseAsOftenAsOneIsAnnounced() throws {
        let stream = "* 1 FETCH (BODY[HEADER] {5}\r\nab\r\nc BODY[TEXT] {3+}\r\nxyz BINARY[1] ~{2}\r\n{}\r\n* 2 EXISTS\r\n"
        XCTAssertEqual(try frames(of: bytes(stream)).map(\.text),
                       ["* 1 FETCH (BODY[HEADER] {5}\r\nab\r\nc BODY[TEXT] {3+}\r\nxyz BINARY[1] ~{2}\r\n{}", "* 2 EXISTS"])
    }

    func testEmptyLiteralAndLiteralAtTheVeryEnd() throws {
        XCTAssertEqual(try frames(of: bytes("* 1 FETCH (BODY[] {0}\r\n)\r\n* LIST () NIL {3}\r\na b\r\n")).map(\.text),
                       ["* 1 FETCH (BODY[] {0}\r\n)", "* LIST () NIL {3}\r\na b"])
    }

    func testAContinuationRequestNeverAnnouncesALiteral() throws {
        // Otherwise the client would wait for five bytes the server never sends.
        XCTAssertEqual(try frames(of: bytes("+ Ready for {5}\r\n* 1 EXISTS\r\n")).map(\.text), ["+ Ready for {5}", "* 1 EXISTS"])
    }

    func testBracesThatAreNotALiteralAnnouncementEndTheLine() throws {
        let stream = "* OK {}\r\n* OK {abc}\r\n* OK {-1}\r\n* OK {5\r\n* OK 5}\r\n* OK }\r\n"
        XCTAssertEqual(try frames(of: bytes(stream)).count, 6)
    }

    func testBareLineFeedsAndBlankLinesBetweenResponses() throws {
        XCTAssertEqual(try frames(of: bytes("* 1 EXISTS\n\r\n\n* 1 FETCH (BODY[] {2}\nab)\nA1 OK\r\n")).map(\.text),
                       ["* 1 EXISTS", "* 1 FETCH (BODY[] {2}\nab)", "A1 OK"])
    }

    func testEveryChunkingOfEveryTranscriptGivesTheSameResponses() throws {
        for (name, transcript) in try Transcript.all() {
            let whole = try frames(of: transcript.server)
            XCTAssertGreaterThan(whole.count, 10, name)
            for chunks in [[1], [2], [3], [7], [13, 1, 64], [4096], [1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89]] {
                XCTAssertEqual(try frames(of: transcript.server, chunkSizes: chunks), whole, "\(name) in chunks of \(chunks)")
            }
        }
    }

    func testAFetchWithALiteralGivesTheSameResponsesSplitAtEveryByte() throws {
        let message = "Subject: {braces}\r\n\r\nline {4}\r\n) A1 OK\r\n"
        let stream = bytes("* 7 FETCH (UID 42 BODY[] {\(message.utf8.count)}\r\n\(message) FLAGS (\\Seen))\r\nA1 OK Fetch completed.\r\n")
        let whole = try frames(of: stream)
        XCTAssertEqual(whole.count, 2)
        for split in 0...stream.count {
            XCTAssertEqual(try frames(of: stream, chunkSizes: [split, stream.count]), whole, "split at \(split)")
            for second in stride(from: split + 1, to: stream.count, by: 5) {
                XCTAssertEqual(try frames(of: stream, chunkSizes: [split, second - split, stream.count]), whole, "split at \(split) and \(second)")
            }
        }
        guard case .untagged(.fetch(let fetch)) = try IMAPResponseParser.parse(whole[0]) else { return XCTFail("not a FETCH") }
        XCTAssertEqual(fetch.body()?.text, message)
        XCTAssertEqual(fetch.flags, [.seen])
    }

    func testEveryTwoWaySplitOfTheDovecotTranscript() throws {
        let stream = try Transcript.load("dovecot-initial-sync.txt").server
        let whole = try frames(of: stream)
        for split in stride(from: 0, through: stream.count, by: 1) {
            XCTAssertEqual(try frames(of: stream, chunkSizes: [split, stream.count]), whole, "split at \(split)")
        }
    }

    func testAnIncompleteLiteralAsksForMoreBytes() throws {
        var framer = IMAPResponseFramer()
        framer.append(bytes("* 1 FETCH (BODY[] {100}\r\n") + Array(repeating: 0x61, count: 60))
        XCTAssertNil(try framer.nextResponse())
        XCTAssertNil(try framer.nextResponse(), "asking again changes nothing")
        framer.append(Array(repeating: 0x61, count: 40) + bytes(")\r\n"))
        XCTAssertEqual(try framer.nextResponse()?.count, 25 + 100 + 1)
        XCTAssertEqual(framer.bufferedByteCount, 0)
    }

    func testAHugeLiteralAnnouncementIsRefusedBeforeAnyByteOfIt() throws {
        for announcement in ["{99999999999999999999}", "{67108865}", "{18446744073709551616+}", "~{9223372036854775808}"] {
            var framer = IMAPResponseFramer()
            framer.append(bytes("* 1 EXISTS\r\n* 2 FETCH (BODY[] \(announcement)\r\nabc"))
            XCTAssertEqual(try framer.nextResponse()?.text, "* 1 EXISTS")
            XCTAssertThrowsError(try framer.nextResponse(), announcement) { error in
                let framing = error as? IMAPFramingError
                XCTAssertEqual(framing?.kind, .literalTooLarge)
                XCTAssertEqual(framing?.streamOffset, 12)
            }
            framer.append(bytes("\r\n* 3 EXISTS\r\n"))
            XCTAssertThrowsError(try framer.nextResponse(), "the refusal is sticky")
        }
    }

    func testALiteralAtTheLimitIsAccepted() throws {
        var framer = IMAPResponseFramer(limits: .init(maxLiteralSize: 1024, maxLineLength: 100, maxResponseSize: 4096))
        framer.append(bytes("* 1 FETCH (BODY[] {1024}\r\n") + Array(repeating: 0x0A, count: 1024) + bytes(")\r\n"))
        XCTAssertEqual(try framer.nextResponse()?.count, 26 + 1024 + 1)
        framer.append(bytes("* 2 FETCH (BODY[] {1025}\r\n"))
        XCTAssertThrowsError(try framer.nextResponse()) { XCTAssertEqual(($0 as? IMAPFramingError)?.kind, .literalTooLarge) }
    }

    func testALineWithoutEndIsRefusedOnceItPassesTheLimit() throws {
        var framer = IMAPResponseFramer(limits: .init(maxLiteralSize: 1024, maxLineLength: 1000, maxResponseSize: 1 << 20))
        framer.append(bytes("* OK ") + Array(repeating: 0x78, count: 900))
        XCTAssertNil(try framer.nextResponse())
        framer.append(Array(repeating: 0x78, count: 200))
        XCTAssertThrowsError(try framer.nextResponse()) { error in
            XCTAssertEqual((error as? IMAPFramingError)?.kind, .lineTooLong)
            XCTAssertFalse("\(error)".contains("xxx"), "errors never echo the server's bytes")
        }

        var whole = IMAPResponseFramer(limits: .init(maxLiteralSize: 1024, maxLineLength: 1000, maxResponseSize: 1 << 20))
        whole.append(bytes("* OK ") + Array(repeating: 0x78, count: 1000) + bytes("\r\n"))
        XCTAssertThrowsError(try whole.nextResponse()) { XCTAssertEqual(($0 as? IMAPFramingError)?.kind, .lineTooLong) }
    }

    func testWhereTheReadsSplitNeverChangesWhatIsRefused() throws {
        let limits = IMAPResponseFramer.Limits(maxLiteralSize: 100, maxLineLength: 50, maxResponseSize: 120)
        // A line of exactly the limit, read up to its CR, then its LF.
        let atLimit = bytes("* OK " + String(repeating: "x", count: 45) + "\r\n")
        // A response whose literals fit and whose last line makes it one byte too large.
        let tooLarge = bytes("* 1 FETCH (BODY[] {60}\r\n") + Array(repeating: 0x41, count: 60) + bytes(" X " + String(repeating: "y", count: 33) + ")\r\n")
        for (stream, refused) in [(atLimit, false), (tooLarge, true)] {
            for split in 1..<stream.count {
                var framer = IMAPResponseFramer(limits: limits)
                var outcome: Result<Int, IMAPFramingError> = .success(0)
                for chunk in [stream[..<split], stream[split...]] {
                    framer.append(chunk)
                    do { while try framer.nextResponse() != nil { outcome = .success(1) } } catch { outcome = .failure(error); break }
                }
                if refused {
                    guard case .failure(let error) = outcome else { return XCTFail("accepted when split at \(split)") }
                    XCTAssertEqual(error.kind, .responseTooLarge, "split at \(split)")
                } else {
                    XCTAssertEqual(try outcome.get(), 1, "split at \(split)")
                }
            }
        }
    }

    func testTheDefaultLineLimitIsOneMegabyteOfLineNotOfLiterals() throws {
        var framer = IMAPResponseFramer()
        let literal = Array(repeating: UInt8(ascii: "x"), count: 3 << 20)
        framer.append(bytes("* 1 FETCH (BODY[] {\(literal.count)}\r\n") + literal + bytes(")\r\n"))
        XCTAssertEqual(try framer.nextResponse()?.count, (3 << 20) + 30)
        framer.append(Array(repeating: UInt8(ascii: "x"), count: (1 << 20) + 1))
        XCTAssertThrowsError(try framer.nextResponse()) { XCTAssertEqual(($0 as? IMAPFramingError)?.kind, .lineTooLong) }
    }

    func testManyLiteralsInOneResponseAreBoundedTogether() throws {
        var framer = IMAPResponseFramer(limits: .init(maxLiteralSize: 1000, maxLineLength: 100, maxResponseSize: 5000))
        var stream = bytes("* 1 FETCH (")
        for i in 0..<10 { stream += bytes("BODY[\(i)] {900}\r\n") + Array(repeating: 0x41, count: 900) + bytes(" ") }
        framer.append(stream)
        XCTAssertThrowsError(try framer.nextResponse()) { XCTAssertEqual(($0 as? IMAPFramingError)?.kind, .responseTooLarge) }
    }

    func testALongSessionKeepsTheBufferToOneResponse() throws {
        var framer = IMAPResponseFramer()
        var count = 0
        for i in 1...20_000 {
            framer.append(bytes("* \(i) FETCH (UID \(i) FLAGS (\\Seen) BODY[] {5}\r\nhello)\r\n"))
            while try framer.nextResponse() != nil { count += 1 }
            XCTAssertEqual(framer.bufferedByteCount, 0)
        }
        XCTAssertEqual(count, 20_000)
    }
}
