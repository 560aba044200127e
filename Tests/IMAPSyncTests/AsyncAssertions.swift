import XCTest

/// `XCTAssertThrowsError` for an `async` expression (XCTest's autoclosures are synchronous).
func assertThrowsAsync<T>(_ expression: @autoclosure () async throws -> T, _ message: String = "",
                          file: StaticString = #filePath, line: UInt = #line,
                          _ handler: (Error) -> Void = { _ in }) async {
    do {
        _ = try await expression()
        XCTFail("no error thrown" + (message.isEmpty ? "" : ": \(message)"), file: file, line: line)
    } catch {
        handler(error)
    }
}
