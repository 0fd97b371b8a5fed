import Compositor
import Foundation

/// The room's picture at a frame, drawn from the decisions `follow` took.
extension RoomStage {
    /// The room at media time `local` (timeline time `t`).
    func picture(local: Double, at t: Double) -> RGBAImage {
        follow(local: local, at: t)
        let kind = arrangement.shown ?? .spotlight
        var frame: RGBAImage
        switch kind {
        case .spotlight:
            frame = spotlightFrame(at: t)
        case .presentation:
            frame = spotlightFrame(at: t)
            clock.measure(.overlay) { drawPictureInPicture(on: &frame, at: t) }
        case .grid:
            frame = clock.measure(.overlay) { gridFrame(at: t) }
        case .stage:
            frame = clock.measure(.overlay) { stageFrame(at: t) }
        }
        return frames.shown(frame, own: kind == .presentation, at: t)
    }

    /// The spotlight's picture: the large participant and the strip (a presentation's too).
    func spotlightFrame(at t: Double) -> RGBAImage {
        let large = seats.order[0]
        var content: RoomPicture.Large?
        var key: RoomPainter.LargeKey?
        switch video.largeFrame(of: large, at: t) {
        case .picture(let picture, let pictureKey):
            content = .picture(picture)
            key = pictureKey
        case .failed:
            seats.fail(large)
        case .none:
            break
        }
        if content == nil {
            content = .content(avatarContent(large, width: layout.large.width, height: layout.large.height))
            // Player ids are not negative: a seat's prepared content is keyed apart from them.
            key = RoomPainter.LargeKey(source: -1 - large, version: seats[large].contentVersion)
        }
        let strip = stripEntries(Array(seats.order.dropFirst()))
        return clock.measure(.overlay) { frames.spotlight(large: content!, key: key, strip: strip) }
    }

    /// The grid's page.
    func gridFrame(at t: Double) -> RGBAImage {
        let entries = arrangement.tiles.map { tileEntry($0.seat, rect: $0.rect, at: t) }
        return frames.grid(entries, dots: arrangement.pageDots)
    }

    /// The stage's tiles drawn into the large area, the others in the strip.
    func stageFrame(at t: Double) -> RGBAImage {
        let entries = arrangement.tiles.map { tileEntry($0.seat, rect: $0.rect, at: t) }
        let onStage = Set(arrangement.tiles.map(\.seat))
        return frames.stage(entries, strip: stripEntries(seats.order.filter { !onStage.contains($0) }))
    }

    /// The picture-in-picture camera over a presentation's frame.
    func drawPictureInPicture(on frame: inout RGBAImage, at t: Double) {
        let entries = arrangement.tiles.map { tileEntry($0.seat, rect: $0.rect, at: t) }
        RoomPicture.drawTiles(entries.map { var entry = $0; entry.speaking = false; return entry }, on: &frame, layout: layout)
    }

    /// A tile's entry: its player's latest picture, else its avatar (`avatarContent`, made once
    /// for the tile's size).
    func tileEntry(_ seat: Int, rect: TileRect, at t: Double) -> RoomPicture.TileEntry {
        let content: RoomPicture.TileEntry.Content
        if let picture = video.tilePicture(seat, at: t) {
            content = .picture(picture)
        } else {
            content = .content(avatarContent(seat, width: Double(rect.width), height: Double(rect.height)))
        }
        let id = seats[seat].participant.id
        return RoomPicture.TileEntry(rect: rect, content: content, speaking: listening.dominant == id && !seats[seat].gone)
    }

    func avatarContent(_ seat: Int, width: Double, height: Double) -> RGBAImage {
        frames.avatarContent(seat, of: seats[seat], width: width, height: height)
    }

    /// The strip's entries for these seats, in this order.
    func stripEntries(_ indexes: [Int]) -> [RoomPicture.StripEntry] {
        indexes.map { index in
            let seat = seats[index]
            return RoomPicture.StripEntry(avatar: seat.avatar, speakingLevel: listening.speakingLevel(seat.participant.id),
                                          muted: !seat.hasSound, failed: seat.failed)
        }
    }
}
