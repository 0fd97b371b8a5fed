import CFuzzerDriver
import Foundation
@testable import StoryModel
@testable import StoryPlayback

/// One input: any bytes as a storyboard. The parser must answer with a storyboard
/// or a `StoryboardError`, never trap, whatever the file holds (it is user input).
/// The folder does not exist, so no relative path can reach a real file.
func fuzzStoryboard(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let data = Data(bytes: bytes, count: count)
    _ = try? Storyboard(json: data, folder: "/nonexistent/live-stories-fuzz")
    return 0
}

@main
enum FuzzStoryboardMain {
    static func main() {
        exit(story_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzStoryboard))
    }
}
