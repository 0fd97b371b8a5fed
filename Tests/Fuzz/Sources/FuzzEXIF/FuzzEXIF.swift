import CFuzzerDriver
import Foundation
@testable import StoryMedia
@testable import StoryPlayback

/// One input: any bytes as a photo's file (a phone's, or a hostile server's). Reading its EXIF
/// orientation must give nil or one of the eight values, never trap or read out of bounds.
func fuzzEXIF(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    if let orientation = EXIFOrientation.read(UnsafeRawBufferPointer(start: bytes, count: count)) {
        precondition((1...8).contains(orientation.exif), "an orientation outside EXIF's eight")
    }
    return 0
}

@main
enum FuzzEXIFMain {
    static func main() {
        exit(story_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzEXIF))
    }
}
