import Compositor
import Foundation

extension StoryRenderer {
    /// The sound of the frame at `t`: each visible story's sound weighted by its share of the
    /// screen (1 − f and f mid-turn), so the sound crossfades with the picture, and by its
    /// item's `volume` (none when `muted`); the storyboard's music under it (`MusicMix`).
    func mix(at t: Double, count: Int) -> FrameSound {
        var mixed = FrameSound(count: count)
        let p = navigator.pageOffset
        let pages = navigator.geometry.visiblePages(pageOffset: p)
        let f = p - p.rounded(.down)
        for page in pages {
            let share = pages.count == 1 ? 1.0 : (page == pages[0] ? 1 - f : f)
            // A muted item's sound is taken all the same: its player's queue of sound must drain.
            guard share > 0, let player = players[page].current, let sound = player.sound(at: t, count: count) else { continue }
            mixed.add(sound, gain: Float(share * player.item.gain))
        }
        musicMix()?.add(to: &mixed, at: t)
        return mixed
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
