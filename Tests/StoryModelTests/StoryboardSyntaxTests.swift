import Foundation
import StoryMedia
import StoryModel
import StoryPlayerTestSupport
import XCTest

/// Storyboards written by hand: syntax errors say the file, line and column; a trailing comma is
/// an error, not quietly accepted; `"version": 1`, as docs/storyboard.md writes it, is accepted.
final class StoryboardSyntaxTests: XCTestCase {
    func parseError(_ json: String) -> String? {
        do {
            _ = try Storyboard.parse(json)
            return nil
        } catch {
            return "\(error)"
        }
    }

    func testTrailingCommasAreErrorsWithLineAndColumn() {
        XCTAssertEqual(parseError("{\"stories\": [{\"id\": \"a\", \"items\": [{\"uri\": \"x.mp4\"},]}]}"),
                       "not valid JSON: line 1, column 52: a trailing comma: JSON allows no comma after the last element")
        XCTAssertEqual(parseError("{\"stories\": [{\"id\": \"a\",\n \"items\": [{\"uri\": \"x.mp4\", }]}]}"),
                       "not valid JSON: line 2, column 27: a trailing comma: JSON allows no comma after the last member")
    }

    func testOtherSyntaxErrorsSayWhere() {
        XCTAssertEqual(parseError("{\"stories\" [] }"), "not valid JSON: line 1, column 12: expected ':' after the key")
        XCTAssertEqual(parseError("{\n  \"stories\": [\n    {'id': \"a\"}]}"),
                       "not valid JSON: line 3, column 6: expected a key in double quotes, found '''")
        XCTAssertEqual(parseError("{\"duration\": 01}"), "not valid JSON: line 1, column 15: expected ',' or '}', found '1'")
        XCTAssertEqual(parseError("{\"duration\": 1} x"), "not valid JSON: line 1, column 17: unexpected text after the document")
        XCTAssertEqual(parseError("{\"id\": \"a"), "not valid JSON: line 1, column 10: the document ends inside a string")
        XCTAssertEqual(parseError(String(repeating: "[", count: 600)), "not valid JSON: line 1, column 513: nested more than 512 deep")
    }

    /// What Foundation would take without a word (a key written twice: one value kept) or
    /// refuse with a message about types and no place (a number no Double holds, bytes that are
    /// not UTF-8) is a syntax error that says where.
    func testDuplicateKeysHugeNumbersAndBytesNotUTF8SayWhere() throws {
        XCTAssertEqual(parseError("{\"stories\": [{\"items\": [{\"uri\": \"a.jpg\", \"uri\": \"b.mp4\"}]}]}"),
                       "not valid JSON: line 1, column 42: the key \"uri\" is already in this object: each key may appear once")
        XCTAssertEqual(parseError("{\"stories\": [],\n \"stories\": []}"),
                       "not valid JSON: line 2, column 2: the key \"stories\" is already in this object: each key may appear once")
        // Keys are the strings they stand for: an escape, or another spelling of the same
        // accented letter, is the same key (Foundation would keep one value of the two).
        XCTAssertEqual(parseError("{\"stories\": [{\"items\": [{\"uri\": \"a.jpg\", \"\\u0075ri\": \"b.mp4\"}]}]}"),
                       "not valid JSON: line 1, column 42: the key \"uri\" is already in this object: each key may appear once")
        XCTAssertEqual(parseError("{\"caf\u{E9}\": 1, \"cafe\u{301}\": 2}"),
                       "not valid JSON: line 1, column 14: the key \"cafe\u{301}\" is already in this object: each key may appear once")
        XCTAssertEqual(parseError("{\"a\\nb\": 1, \"a\\u000ab\": 2}"),
                       "not valid JSON: line 1, column 13: the key \"a\nb\" is already in this object: each key may appear once")
        XCTAssertNotEqual(parseError("{\"stories\": [{\"id\": \"a\\\"b\", \"items\": [{\"uri\": \"a.jpg\", \"poster\": \"\\ud83d\\ude00.jpg\"}]}]}")?
                            .contains("already in this object"), true, "escapes in keys and values that are no duplicate")
        // The same key in two objects is fine.
        XCTAssertNil(parseError("{\"stories\": [{\"id\": \"a\", \"items\": [{\"uri\": \"a.jpg\"}]}, {\"id\": \"b\", \"items\": [{\"uri\": \"b.jpg\"}]}]}"))
        for number in ["1e400", "-1e400", "1e-400", "0.0000001e-320"] {
            XCTAssertEqual(parseError("{\"duration\": \(number)}"),
                           "not valid JSON: line 1, column 14: the number \(number) is out of range (numbers here are 64-bit floats: about 1e-308 to 1e308)")
        }
        XCTAssertNotEqual(parseError("{\"duration\": 0e-400, \"stories\": []}")?.contains("numbers here are"), true, "zero is zero")
        let folder = ScratchFolder()
        for (bytes, column, what) in [([0xFF], 22, "byte 0xFF cannot start a character"),
                                      ([0xC3], 22, "byte 0xC3 is not followed by the bytes of a character"),
                                      ([0xED, 0xA0, 0x80], 22, "byte 0xED is not followed by the bytes of a character")] as [([UInt8], Int, String)] {
            let path = folder.write("latin1.json", Array("{\"stories\": [{\"id\": \"".utf8) + bytes + Array("\", \"items\": []}]}".utf8))
            XCTAssertThrowsError(try Storyboard(contentsOf: path)) { error in
                XCTAssertEqual("\(error)", "\(path): not valid JSON: line 1, column \(column): not UTF-8: \(what) (save the file as UTF-8)")
            }
        }
        // UTF-8 as it should be: two, three and four bytes.
        XCTAssertNil(parseError("{\"stories\": [{\"id\": \"é€😀\", \"items\": [{\"uri\": \"a.jpg\"}]}]}"))
    }

    /// A tap's `x` out of range is that one error, not also a missing `side`; a NUL in a string
    /// (which a C path would end at, opening a.jpg for "a.jpg\u0000.mp4") is refused.
    func testAnUnusableTapAndANULInAURIAreReportedOnce() {
        let tap = parseError(#"{"stories": [{"items": [{"uri": "a.jpg"}]}], "script": [{"at": 0.5, "action": "tap", "x": 1.5}]}"#)
        XCTAssertEqual(tap?.split(separator: "\n").count, 1, tap ?? "")
        XCTAssertTrue(tap?.contains("script[0].x: 1.5 is out of range") ?? false, tap ?? "")
        let side = parseError(#"{"stories": [{"items": [{"uri": "a.jpg"}]}], "script": [{"at": 0.5, "action": "tap", "side": "up"}]}"#)
        XCTAssertEqual(side?.split(separator: "\n").count, 1, side ?? "")
        XCTAssertTrue(side?.contains("script[0].side:") ?? false, side ?? "")
        XCTAssertEqual(parseError(#"{"stories": [{"items": [{"uri": "a.jpg\u0000.mp4"}]}]}"#),
                       "stories[0].items[0].uri: contains a NUL character (\\u0000)")
    }

    func testAFileNamesItselfInASyntaxError() throws {
        let folder = ScratchFolder()
        let path = folder.write("board.json", Array("{\"stories\": [,]}".utf8))
        XCTAssertThrowsError(try Storyboard(contentsOf: path)) { error in
            XCTAssertEqual("\(error)", "\(path): not valid JSON: line 1, column 14: expected a value, found ','")
        }
    }

    func testVersionOneIsAcceptedAndOthersAreRefused() throws {
        let board = try Storyboard.parse(#"{"version": 1, "stories": [{"id": "a", "items": [{"uri": "x.mp4"}]}]}"#)
        XCTAssertEqual(board.stories.map(\.id), ["a"])
        XCTAssertEqual(parseError(#"{"version": 2, "stories": [{"id": "a", "items": [{"uri": "x.mp4"}]}]}"#),
                       "version: this renderer reads storyboard version 1, not 2")
    }

    /// Valid JSON of every shape still parses: the strict check refuses nothing the standard allows.
    func testEveryJSONShapeStillParses() throws {
        let board = try Storyboard.parse("""
        { "stories" : [ { "id" : "a\\u00e9\\n\\"q\\"" , "items" : [ { "uri" : "x.mp4" , "duration" : -0.5e+1 } ] } ] ,
          "script" : [ ] , "canvas" : { "fps" : 2.5E1 } }\t\r
        """.replacingOccurrences(of: "-0.5e+1", with: "1.5e-0"))
        XCTAssertEqual(board.stories[0].id, "aé\n\"q\"")
        XCTAssertEqual(board.canvas.fps, 25)
        XCTAssertEqual(board.stories[0].items[0].duration, 1.5)
    }

    /// An unknown key names the nearest key the object takes; a misspelt required key is named
    /// as what was written, not as "missing".
    func testUnknownKeysSuggestTheNearestKnownKey() {
        XCTAssertEqual(parseError(#"{"stories": [{"id": "a", "items": [{"url": "x.mp4"}]}]}"#),
                       #"stories[0].items[0].url: unknown key; did you mean "uri"?"#)
        XCTAssertEqual(parseError(#"{"stories": [{"id": "a", "items": [{"uri": "x.mp4", "durration": 2}]}]}"#),
                       #"stories[0].items[0].durration: unknown key; did you mean "duration"?"#)
        XCTAssertEqual(parseError(#"{"canvas": {"fsp": 30}, "stories": [{"id": "a", "items": [{"uri": "x.mp4"}]}]}"#),
                       #"canvas.fsp: unknown key; did you mean "fps"?"#)
        XCTAssertEqual(parseError(#"{"stories": [{"id": "a", "items": [{"uri": "x.mp4", "zebra": 2}]}]}"#),
                       "stories[0].items[0].zebra: unknown key", "nothing near: no suggestion")
        XCTAssertEqual(parseError(#"{"stories": [{"id": "a", "items": [{}]}]}"#), "stories[0].items[0].uri: missing")
    }

    // MARK: - Every error at once

    /// A hand-written storyboard with a mistake in each part reports all of them in one run,
    /// in the order they are written, each with its JSON path; a value of the wrong type that
    /// is also required is reported once, by its type.
    func testEveryErrorIsReportedAtOnceWithItsPath() {
        let json = #"""
        {"canvas": {"width": "wide", "fps": 500, "fsp": 30},
         "transition": {"style": "spin"},
         "stories": [
           {"id": "a", "items": [{"url": "a.mp4"}, {"uri": 5}, {"uri": "ok.mp4", "duration": -1}]},
           {"id": "b", "items": []},
           {"id": "a", "items": [{"uri": "dup.mp4"}]}
         ],
         "script": [{"at": 1, "action": "swip", "direction": "next"}, {"action": "tap", "side": "left"},
                    {"at": 2, "action": "swipe", "direction": "next"}],
         "colour": "#000000"}
        """#
        do {
            _ = try Storyboard.parse(json)
            XCTFail("a broken storyboard parsed")
        } catch {
            XCTAssertEqual(error.all.map(\.path), [
                "canvas.width", "canvas.fps", "canvas.fsp", "transition.style",
                "stories[0].items[0].url", "stories[0].items[1].uri", "stories[0].items[2].duration",
                "stories[1].items", "stories[2].id", "script[0].action", "script[1].at", "colour",
            ])
            XCTAssertEqual(error.path, "canvas.width", "the first error is still the error's own path")
            XCTAssertEqual(error.all[5].message, "expected a string, got a number")
            XCTAssertEqual(error.all[8].message, #"duplicate id "a" (also stories[0].id)"#)
            XCTAssertEqual(error.unreported, 0)
            XCTAssertEqual("\(error)".split(separator: "\n").count, 12, "one line per error")
        }
    }

    /// Past twenty, errors are counted, not listed, so a storyboard in the wrong format does
    /// not bury the first ones.
    func testAtMostTwentyErrorsAreListedAndTheRestCounted() {
        let items = (0..<25).map { _ in #"{"uri": "x.mp4", "duration": 0}"# }.joined(separator: ", ")
        do {
            _ = try Storyboard.parse(#"{"stories": [{"id": "a", "items": ["# + items + "]}]}")
            XCTFail("a broken storyboard parsed")
        } catch {
            XCTAssertEqual(error.all.count, StoryboardError.reportLimit)
            XCTAssertEqual(error.all.last?.path, "stories[0].items[19].duration")
            XCTAssertEqual(error.unreported, 5)
            XCTAssertEqual("\(error)".split(separator: "\n").last, "… and 5 more errors")
        }
    }

    /// A script that refers to a story with an error is not reported again as referring to a
    /// story that does not exist: the story's own error is the one to fix.
    func testAStoryWithAnErrorStillCountsAsDeclared() {
        do {
            _ = try Storyboard.parse(#"""
            {"stories": [{"id": "r", "room": {"participants": [{"id": "p"}]}}],
             "script": [{"at": 1, "action": "pin", "story": "r", "participant": "p"}]}
            """#)
            XCTFail("a broken storyboard parsed")
        } catch {
            XCTAssertEqual(error.all.map(\.path), ["stories[0].room.participants[0].uri"])
        }
    }
}
