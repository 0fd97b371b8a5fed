import CFuzzerDriver
import Foundation
@testable import StoryPlayback

/// One input: any bytes as a feed page fetched over the network (a server the user
/// does not control). Reading must give a page or a `FeedError`, never trap, and a network page
/// never points to a local file.
func fuzzFeedPage(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let data = Data(bytes: bytes, count: count)
    let url = URL(string: "http://127.0.0.1:9/feed/page-1.json")!
    guard let page = try? FeedPages.page(data, from: url, firstIndex: 0, pageSize: 8) else { return 0 }
    precondition(page.stories.count <= 8, "a page holds at most its page size")
    precondition(page.next?.isFileURL != true, "a network page pointed to a local file")
    return 0
}

@main
enum FuzzFeedPageMain {
    static func main() {
        exit(story_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv, fuzzFeedPage))
    }
}
