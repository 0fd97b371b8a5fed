import Compositor
import Foundation

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
        switch storyMusics[page] ?? .unread {
        case .ready(let mix): return mix
        case .unreadable: return nil
        case .unread:
            do {
                let mix = try MusicMix(bed, end: nil, limits: limits)
                storyMusics[page] = .ready(mix)
                return mix
            } catch {
                warnings.append("stories[\(page)].music \(bed.source): \(error)")
                storyMusics[page] = .unreadable
                return nil
            }
        }
    }

    /// The storyboard's music, read on the first frame's sound; one that cannot be read is a
    /// warning, and the render goes on without it.
    func musicMix() -> MusicMix? {
        guard let bed = storyboard.music else { return nil }
        if case .ready(let mix) = music { return mix }
        if case .unreadable = music { return nil }
        do {
            let mix = try MusicMix(bed, end: storyboard.duration, limits: limits)
            music = .ready(mix)
            return mix
        } catch {
            warnings.append("music \(bed.source): \(error)")
            music = .unreadable
            return nil
        }
    }
}
