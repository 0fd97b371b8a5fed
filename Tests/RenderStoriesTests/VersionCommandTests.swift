import Foundation
import XCTest

/// `version`: what a bug report needs to say which libraries rendered.
final class VersionCommandTests: XCTestCase {
    let cli = CommandLineRunner()
    let folder = ScratchFolder()

    /// 18. `--version` prints the tool's version and the FFmpeg, libpng and FreeType it runs with.
    func testVersionNamesTheLibraries() throws {
        let result = try cli.run(["--version"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("render-stories ") == true, result.stdout)
        for (name, pattern) in [("FFmpeg", #"^FFmpeg \d+\.\d+"#), ("libpng", #"^libpng \d+\.\d+\.\d+$"#),
                                ("FreeType", #"^FreeType [1-9]\d*\.\d+\.\d+$"#)] {
            XCTAssertTrue(lines.contains { $0.range(of: pattern, options: .regularExpression) != nil }, "\(name): \(result.stdout)")
        }
    }
}
