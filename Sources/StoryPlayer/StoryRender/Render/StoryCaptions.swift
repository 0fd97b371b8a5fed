import Compositor
import StoryMedia
import StoryModel
import StoryPlayback

/// The captions of a render's stories: each file read once, its libass renderer made on the
/// first frame that asks for it, and the caption of an item on screen drawn at the time its
/// frame plan gives, so a shard draws the same caption as the whole render.
///
/// An item's own captions follow its media time; a story's captions, used for its items that
/// have none, follow the story's time. Stories a feed brings later have no captions. Like the
/// libass renderers it holds, it stays on the thread that draws (the render's).
final class StoryCaptions {
    let layout: CaptionLayout
    private var tracks: [Storyboard.CaptionSource: CaptionTrack]
    private var renderers: [Storyboard.CaptionSource: CaptionRenderer] = [:]
    /// The most renderers kept: each holds its own copy of the fonts (a few MB), and a frame needs
    /// at most two faces' captions, so a storyboard with many captioned stories does not keep one
    /// per story it has passed. Making one again costs a few milliseconds, once per story shown.
    static let keptRenderers = 4
    /// Files that could not be read or drawn, once each, as notices (`path: why`).
    private(set) var problems: [String] = []

    init(storyboard: Storyboard, platform: PlatformSafeZones?) {
        layout = CaptionLayout(width: storyboard.canvas.width, height: storyboard.canvas.height, platform: platform)
        // The CLI refuses unreadable files before a render (`checkCaptions`); a library caller's
        // are noted, and those stories play without captions.
        let loaded = storyboard.loadCaptions()
        tracks = loaded.tracks
        problems = loaded.problems.map { "\($0.path): \($0.message)" }
    }

    // MARK: - Which captions, on which time

    /// The renderer of the captions that apply to an item, and the time they run on.
    private func captions(story: Int, item: Int, mediaTime: Double, storyTime: Double) -> (CaptionRenderer, Double)? {
        guard !tracks.isEmpty else { return nil }
        if let renderer = renderer(for: Storyboard.CaptionSource(story: story, item: item, file: "")) {
            return (renderer, mediaTime)
        }
        if let renderer = renderer(for: Storyboard.CaptionSource(story: story, item: nil, file: "")) {
            return (renderer, storyTime)
        }
        return nil
    }

    /// Whether a caption shows on this item at its frame's time. An item not playing (its
    /// poster on screen) shows none.
    func shows(_ shown: FramePlan.ShownItem) -> Bool {
        guard shown.plays, let (renderer, time) = captions(story: shown.story, item: shown.item, mediaTime: shown.mediaTime,
                                                           storyTime: shown.storyTime) else { return false }
        return renderer.isShowing(at: time)
    }

    /// Draws the caption showing on this item, if any, onto its picture (the canvas's size).
    func draw(on picture: inout RGBAImage, for shown: FramePlan.ShownItem) {
        guard shown.plays else { return }
        draw(on: &picture, story: shown.story, item: shown.item, mediaTime: shown.mediaTime, storyTime: shown.storyTime)
    }

    /// Draws the caption showing on an item at these times, if any (`still`'s way in).
    func draw(on picture: inout RGBAImage, story: Int, item: Int, mediaTime: Double, storyTime: Double) {
        guard let (renderer, time) = captions(story: story, item: item, mediaTime: mediaTime, storyTime: storyTime) else { return }
        renderer.draw(on: &picture, at: time)
    }

    // MARK: - Renderers

    /// The renderer of the file at `key`'s story and item (its `file` is not compared), made on
    /// first use; nil when there is no such file or libass cannot draw it (noted once).
    private func renderer(for key: Storyboard.CaptionSource) -> CaptionRenderer? {
        guard let source = tracks.keys.first(where: { $0.story == key.story && $0.item == key.item }) else { return nil }
        if let made = renderers[source] { return made }
        if renderers.count >= StoryCaptions.keptRenderers { renderers.removeAll() }
        do {
            let made = try CaptionRenderer(tracks[source]!, layout: layout)
            renderers[source] = made
            return made
        } catch {
            problems.append("\(source.path): \(error)")
            tracks[source] = nil
            return nil
        }
    }
}
