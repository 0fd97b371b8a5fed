import CFuzzerDriver
import Foundation
@testable import StoryLive
@testable import StoryMedia
@testable import StoryPlayback

/// One input: any bytes as a live manifest or playlist from a server (a publisher's, or a
/// hostile one's). Parsing it as DASH and as HLS, listing each representation's live window,
/// choosing where a play starts and filling in segment URLs must never trap, and must stay
/// bounded in memory: a manifest's numbers may be anything.
func fuzzManifest(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    _ = HLSPlaylist(text: text)
    guard let manifest = DASHManifest(text: text) else { return 0 }
    for representation in manifest.representations {
        precondition(representation.template.timeline.count <= DASHRepresentation.Template.maxSegments, "an unbounded timeline")
        for now in [0, 1.8e9, -1e300, Double.greatestFiniteMagnitude] {
            guard let window = DASHLiveWindow(representation, manifest: manifest, unixNow: now) else { continue }
            precondition(window.segments.count <= DASHRepresentation.Template.maxSegments, "an unbounded window")
            _ = window.edge
            for behind in [0, 1, 3, 1e12] {
                if let start = window.start(behind: behind) {
                    _ = representation.template.media.map { representation.url($0, segment: start, manifestURL: "http://127.0.0.1/a/live.mpd") }
                }
            }
        }
        _ = representation.template.initialization.map { representation.url($0, segment: nil, manifestURL: "http://127.0.0.1/live.mpd") }
    }
    return 0
}

@main
enum FuzzManifestMain {
    static func main() {
        exit(story_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzManifest))
    }
}
