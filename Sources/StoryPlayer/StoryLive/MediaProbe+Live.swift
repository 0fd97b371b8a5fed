import Foundation
import StoryMedia
import StoryModel

extension MediaProbe {
    /// Opens `uri` (a path or URL) under the same protocol rules and timeouts as a render. A
    /// source may send sound before its picture, so the first picture is awaited for the open
    /// timeout; a source with sound and no picture by then is reported as sound, not an error.
    /// Here, beside the live protocols, because a live URL is opened through its own
    /// (`LiveSources`).
    public static func run(_ uri: String, timeouts: Timeouts = Timeouts()) throws(MediaError) -> MediaProbe {
        let source = MediaSource(uri: uri, relativeTo: FileManager.default.currentDirectoryPath)
        var limits = DecodeLimits()
        limits.timeouts = timeouts
        // Push protocols carry live streams by nature; a playlist or file says so only once open.
        let liveByProtocol = MediaSource.scheme(of: uri).map(MediaSource.liveProtocols.contains) ?? false
        return try run(source: source, limits: limits, isLive: liveByProtocol,
                       live: LiveSources.reading(source, isLive: liveByProtocol))
    }
}
