import Foundation
import XCTest

/// How the tool words what it says: one spelling of `error:`, a
/// story's repeated failure said once, and the docs' `--version` line true to what it prints.
final class MessageWordingTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// 17. argument-parser's errors and the tool's own start alike: `error: `.
    func testEveryErrorIsSpelledTheSameWay() throws {
        let photo = CommandLineTests.packageRoot.appendingPathComponent("samples/sunset.jpg").path
        let odd = folder.file("odd.json")
        try Data(#"{"canvas": {"width": 91, "height": 160, "fps": 10}, "stories": [{"items": [{"uri": "\#(photo)", "duration": 1}]}]}"#.utf8)
            .write(to: URL(fileURLWithPath: odd))
        for arguments in [["render", cli.demo, "--threads", "0"],            // validate()
                          ["render", cli.demo, "--no-such-option"],          // the parser
                          ["check"],                                         // a missing argument
                          ["render", odd, "--mp4", folder.file("odd.mp4")],  // render's run()
                          ["probe", folder.file("nothing.mp4")],             // a command's own
                          ["rendr", "board.json"]] {                         // the root's own
            let result = try cli.run(arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.stderr.hasPrefix("error: "), "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("Error:"), "\(arguments): \(result.stderr)")
        }
    }

    /// 17. A story that fails each time it is shown says its error once, with how many times.
    func testAStoryThatFailsTwiceSaysItsErrorOnce() throws {
        let photo = CommandLineTests.packageRoot.appendingPathComponent("samples/sunset.jpg").path
        try Data("not a video".utf8).write(to: URL(fileURLWithPath: folder.file("broken.mp4")))
        let board = folder.file("board.json")
        try Data("""
            {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 3,
             "stories": [{"id": "broken", "items": [{"uri": "broken.mp4", "duration": 1}]},
                         {"id": "photo", "items": [{"uri": "\(photo)", "duration": 5}]}],
             "script": [{"at": 0.5, "action": "swipe", "direction": "next"}, {"at": 1.5, "action": "swipe", "direction": "previous"}]}
            """.utf8).write(to: URL(fileURLWithPath: board))
        let out = folder.file("out")
        let result = try cli.run(["render", board, "--output", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/summary.json")))
                                    as? [String: Any])
        let stories = try XCTUnwrap(summary["stories"] as? [[String: Any]])
        XCTAssertEqual(stories.first?["failures"] as? Int, 2, "the story failed each time it was shown: \(stories)")
        let line = try XCTUnwrap(result.stderr.split(separator: "\n").first { $0.hasPrefix("story broken failed") }, result.stderr)
        XCTAssertEqual(line.components(separatedBy: "stories[0].items[0]").count, 2, "the error once: \(line)")
        XCTAssertTrue(line.hasSuffix("(2 times)"), String(line))
    }

    /// 17. docs/command-line.md's `--version` sentence names every library `--version` prints.
    func testTheDocsSayWhatVersionPrints() throws {
        let printed = try cli.run(["--version"])
        XCTAssertEqual(printed.status, 0)
        let docs = try String(contentsOf: CommandLineTests.packageRoot.appendingPathComponent("docs/command-line.md"), encoding: .utf8)
        let sentence = try XCTUnwrap(docs.components(separatedBy: "`render-stories --version` prints").dropFirst().first?
            .components(separatedBy: ".\n").first).replacingOccurrences(of: "\n", with: " ")
        let libraries = printed.stdout.split(separator: "\n").dropFirst().map { line in
            // "Little CMS 2.14": the name is every word before the version.
            line.split(separator: " ").prefix { !($0.first?.isNumber ?? false) }.joined(separator: " ")
        }
        XCTAssertEqual(libraries.count, 6, printed.stdout)
        for library in libraries { XCTAssertTrue(sentence.contains(library), "\(library) in: \(sentence)") }
    }
}
