import Compositor
import Foundation
import StoryMedia
import StoryModel

extension StoryRenderer {
    /// The sound of the frame at `t`: each visible story's sound weighted by its share of the
    /// screen (1 − f and f mid-turn), so the sound crossfades with the picture, and by its
    /// item's `volume` (none when `muted`), with the story's own song (`storySound`); the
    /// storyboard's music under it all (`MusicMix`).
    func mix(at t: Double, count: Int) -> FrameSound {
        var mixed = FrameSound(count: count)
        let p = navigator.pageOffset
        let pages = navigator.geometry.visiblePages(pageOffset: p)
        let f = p - p.rounded(.down)
        for page in pages {
            let share = pages.count == 1 ? 1.0 : (page == pages[0] ? 1 - f : f)
            guard share > 0 else { continue }
            if let music = storyMusic(page) {
                mixed.add(storySound(page, with: music, at: t, count: count), gain: Float(share))
                continue
            }
            // A muted item's sound is taken all the same: its player's queue of sound must drain.
            guard let player = players[page].current, let sound = player.sound(at: t, count: count) else { continue }
            mixed.add(sound, gain: Float(share * player.item.gain))
        }
        musicMix()?.add(to: &mixed, at: t)
        return mixed
    }

    /// Story `page`'s own sound with its song under it, ducked by that sound alone: the song
    /// runs on the story's time, so it is silent while a finger holds the story, and starts
    /// again from its `in` when the story is shown again from its start.
    func storySound(_ page: Int, with music: MusicMix, at t: Double, count: Int) -> FrameSound {
        var own = FrameSound(count: count)
        if let player = players[page].current, let sound = player.sound(at: t, count: count) {
            own.add(sound, gain: Float(player.item.gain))
        }
        guard let plan = framePlan, let shown = plan.shown.first(where: { $0.story == page }) else { return own }
        // A recording asks for sound at times around its frame's: on from the frame's story time.
        let storyTime = shown.storyTime + max(0, t - plan.time)
        if music.advances(to: storyTime) { music.add(to: &own, at: storyTime) }
        return own
    }

    /// Story `page`'s song, read when its sound is first asked for; one that cannot be read is a
    /// warning naming its JSON path, and the story plays without it.
    func storyMusic(_ page: Int) -> MusicMix? {
        guard stories.indices.contains(page), let bed = stories[page].music else { return nil }
        var state = storyMusics[page] ?? .unread
        defer { storyMusics[page] = state }
        return Self.read(bed, end: nil, named: "stories[\(page)].music", limits: limits, state: &state, warnings: &warnings)
    }

    /// The storyboard's music, read on the first frame's sound; one that cannot be read is a
    /// warning, and the render goes on without it.
    func musicMix() -> MusicMix? {
        guard let bed = storyboard.music else { return nil }
        return Self.read(bed, end: storyboard.duration, named: "music", limits: limits, state: &music, warnings: &warnings)
    }

    /// A music's mix as `state` holds it, read the first time it is asked for (`MusicMix`); a
    /// file that cannot be read is said once in `warnings`, under `name`.
    static func read(_ bed: MusicBed, end: Double?, named name: String, limits: DecodeLimits, state: inout MusicState,
                     warnings: inout [String]) -> MusicMix? {
        switch state {
        case .ready(let mix): return mix
        case .unreadable: return nil
        case .unread:
            do {
                let mix = try MusicMix(bed, end: end, limits: limits)
                state = .ready(mix)
                return mix
            } catch {
                warnings.append("\(name) \(bed.source): \(error)")
                state = .unreadable
                return nil
            }
        }
    }
}
