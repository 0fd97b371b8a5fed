import Foundation
import XCTest

/// `batch --check` finds before the first frame everything a batch would refuse or fail on, and
/// names every bad row: a row the data cannot give hides none of the others' mistakes.
final class BatchCheckTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// A storyboard whose photo and length are parameters, beside one photo.
    private func board() throws -> String {
        try FileManager.default.copyItem(atPath: CommandLineTests.packageRoot.appendingPathComponent("samples/sunset.jpg").path,
                                         toPath: folder.file("sunset.jpg"))
        return try write("""
            {"parameters": {"photo": {"type": "file", "default": "sunset.jpg"},
                            "length": {"type": "number", "default": 1, "min": 0.5, "max": 5}},
             "canvas": {"width": 90, "height": 160, "fps": 10},
             "stories": [{"id": "product", "items": [{"uri": "{{photo}}", "duration": "{{length}}"}]}]}
            """, to: "board.json")
    }

    private func write(_ text: String, to name: String) throws -> String {
        let path = folder.file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// 6. Good rows are counted without an --output (there is nothing to write).
    func testCheckNeedsNoOutput() throws {
        let board = try board()
        let rows = try write("photo,length\nsunset.jpg,1\nsunset.jpg,2\n", to: "rows.csv")
        let check = try cli.run(["batch", board, "--data", rows, "--check"])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertEqual(check.stdout, "2\n")
        // A batch that renders still needs its folder.
        let render = try cli.run(["batch", board, "--data", rows])
        XCTAssertEqual(render.status, 2, render.stderr)
        XCTAssertTrue(render.stderr.contains("--output"), render.stderr)
    }

    /// 6. A `file` parameter naming a file that is not there fails its row's render: --check
    /// says so, naming the row and the file, exit 2.
    func testCheckNamesAFileParameterThatIsNotThere() throws {
        let board = try board()
        let rows = try write("photo,length\nsunset.jpg,1\nmissing.jpg,1\n", to: "rows.csv")
        let check = try cli.run(["batch", board, "--data", rows, "--check"])
        XCTAssertEqual(check.status, 2, "\(check.stdout)\(check.stderr)")
        XCTAssertEqual(check.stdout, "", "no count for rows that would fail")
        XCTAssertTrue(check.stderr.contains("error: stories[0].items[0].uri: no such file \(folder.file("missing.jpg")) (row 2)"), check.stderr)
        XCTAssertFalse(check.stderr.contains("row 1"), check.stderr)
    }

    /// 7. Rows with too few or too many values are each an error naming its row, and the other
    /// rows are checked all the same.
    func testEveryBadCSVRowIsNamedAndTheOthersAreStillChecked() throws {
        let board = try board()
        let rows = try write("photo,length\nsunset.jpg\nsunset.jpg,1,extra\nsunset.jpg,long\nsunset.jpg,1\n", to: "rows.csv")
        let check = try cli.run(["batch", board, "--data", rows, "--check"])
        XCTAssertEqual(check.status, 2, check.stderr)
        for expected in ["error: rows.csv, row 1: 1 values for 2 columns", "error: rows.csv, row 2: 3 values for 2 columns",
                         #"error: parameters.length: length=long (row 3): "long" is not a number"#] {
            XCTAssertTrue(check.stderr.contains(expected), "\(expected) in:\n\(check.stderr)")
        }
        // A batch that would render refuses the same, before any frame.
        let render = try cli.run(["batch", board, "--data", rows, "--output", folder.file("out")])
        XCTAssertEqual(render.status, 2, render.stderr)
        XCTAssertTrue(render.stderr.contains("row 2: 3 values") && render.stderr.contains("(row 3)"), render.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.file("out")), "nothing was made")
    }

    /// 7. In JSON lines, a line that does not parse is its row's error; the next line is read.
    func testABrokenJSONLineHidesNoOtherRow() throws {
        let board = try board()
        let rows = try write("{\"photo\": \"sunset.jpg\"\n{\"length\": \"long\"}\n[1]\n", to: "rows.jsonl")
        let check = try cli.run(["batch", board, "--data", rows, "--check"])
        XCTAssertEqual(check.status, 2, check.stderr)
        XCTAssertTrue(check.stderr.contains("rows.jsonl, line 1 (row 1):"), check.stderr)
        XCTAssertTrue(check.stderr.contains("length=long (row 2)"), check.stderr)
        XCTAssertTrue(check.stderr.contains("rows.jsonl, line 3: expected an object"), check.stderr)
    }
}
