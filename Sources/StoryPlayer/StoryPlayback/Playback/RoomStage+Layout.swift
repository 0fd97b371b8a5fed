import Compositor
import Foundation
import StoryMedia
import StoryModel
import StoryTrace

/// The script's `layout` and `page` actions as the room's players see them: nil keeps the
/// storyboard's layout and the first page.
public struct RoomView: Sendable, Equatable {
    public var layout: RoomLayoutStyle?
    /// From 1.
    public var page: Int?

    public init(layout: RoomLayoutStyle? = nil, page: Int? = nil) {
        self.layout = layout
        self.page = page
    }
}

// MARK: - Which arrangement, and who sits where

extension RoomStage {
    /// A screen share that is there makes any layout a presentation.
    var currentArrangement: Arrangement {
        if seats.contains(where: { $0.participant.screenshare && !$0.gone }) { return .presentation }
        switch style {
        case .spotlight: return .spotlight
        case .grid: return .grid
        case .stage: return .stage
        }
    }

    /// The participants' picture shape (width / height): the first that the probe measured,
    /// else the canvas's.
    var participantAspect: Double {
        if let size = seats.first(where: { !$0.participant.screenshare && $0.videoSize != nil })?.videoSize {
            return Double(size.width) / Double(size.height)
        }
        return Double(layout.width) / Double(layout.height)
    }

    /// A change of arrangement: the tiles' players stop (and the large one's, for tiles), the
    /// picture cross-fades from the last frame, as a change of the large participant does.
    func arrange(_ arrangement: Arrangement, at t: Double) {
        let first = shownArrangement == nil
        if !first, let last = lastShownFrame { fade = (last, t) }
        shownArrangement = arrangement
        stopTiles(at: t)
        seating = nil
        switch arrangement {
        case .grid, .stage:
            stopVideo(at: t)
            shownLarge = nil
        case .spotlight, .presentation:
            // The large participant is chosen again, so the change is traced with it.
            if !first {
                stopVideo(at: t)
                shownLarge = nil
            }
        }
        arrangementReason = first ? "the room starts" : arrangement == .presentation ? "a screen share starts"
            : "layout \(arrangement.rawValue)"
    }

    /// A grid's page or a stage: the seating follows who is there and who speaks, and each
    /// tile shown with video has its player at the tile's size.
    func followTiles(_ arrangement: Arrangement, at t: Double) {
        noteFailedTiles()
        let perPage = arrangement == .grid ? room.tilesPerPage(width: layout.width, height: layout.height) : room.stageSize
        if seating == nil { seating = RoomSeating(perPage: perPage) }
        let present = order.filter { !seats[$0].left && !seats[$0].participant.screenshare }.map { seats[$0].participant.id }
        let dominant = speaker.dominant.flatMap { id in seats.first { $0.participant.id == id && !$0.gone }.map { _ in id } }
        let change = seating!.update(present: present, speaker: dominant, recent: recentSpeakers)
        let pages = arrangement == .grid ? seating!.pageCount : 1
        let newPage = arrangement == .grid ? min(requestedPage, pages - 1) : 0
        // A new arrangement shows its page as it starts; a page action turns one, and a grid
        // that lost the page shown shows its last.
        let paged = newPage != page && arrangementReason == nil
        page = newPage
        let ids = seating!.page(page)
        let rects = arrangement == .grid ? layout.gridTiles(count: ids.count, aspect: participantAspect, paged: pages > 1)
            : layout.stageTiles(count: ids.count, aspect: participantAspect)
        let tiles = zip(ids, rects).compactMap { id, rect in seats.firstIndex { $0.participant.id == id }.map { (seat: $0, rect: rect) } }
        if arrangementReason != nil || !change.isEmpty || paged {
            // A new arrangement seats everyone again: its reason says so, not each one's joining.
            var why = arrangementReason == nil ? change.reasons : change.reasons.filter { !$0.hasSuffix(" joined") }
            if paged {
                why.insert(newPage == requestedPage ? "page action: page \(page + 1)" : "page \(requestedPage + 1) is gone: page \(page + 1)", at: 0)
            }
            if let reason = arrangementReason { why.insert(reason, at: 0) }
            traceLayout(at: t, tiles: ids, moved: change.moved, why: why.joined(separator: "; "))
            arrangementReason = nil
        }
        shownTiles = tiles
        play(tiles.filter { seats[$0.seat].hasVideo && !seats[$0.seat].gone }, at: t)
    }

    /// A presentation's picture-in-picture tile: its sharer's camera while the share is large.
    func followPictureInPicture(at t: Double) {
        noteFailedTiles()
        guard let large = shownLarge, seats[large].participant.screenshare, let sharer = seats[large].participant.sharer,
              let camera = seats.firstIndex(where: { $0.participant.id == sharer }), !seats[camera].gone else {
            shownTiles = []
            play([], at: t)
            return
        }
        let aspect = seats[camera].videoSize.map { Double($0.width) / Double($0.height) } ?? 9.0 / 16
        let tile = (seat: camera, rect: layout.pictureInPicture(aspect: aspect))
        shownTiles = [tile]
        play(seats[camera].hasVideo ? [tile] : [], at: t)
    }

    // MARK: - The tiles' players

    /// A tile's player that failed fails its participant here, where a shard's fast-forward
    /// decides it too (not only when a frame is drawn): its tile shows the avatar with the
    /// error mark, and its player stops.
    func noteFailedTiles() {
        for seat in tilePlayers.keys.sorted() where tilePlayers[seat]!.player.isFailed { seats[seat].failed = true }
    }

    /// Keeps a player for each of `tiles` at its tile's size (a new size is a new player) and
    /// stops the others.
    func play(_ tiles: [(seat: Int, rect: TileRect)], at t: Double) {
        for seat in tilePlayers.keys.sorted() {
            let playing = tilePlayers[seat]!
            if !tiles.contains(where: { $0.seat == seat && $0.rect.width == playing.width && $0.rect.height == playing.height }) {
                stopTile(seat, at: t)
            }
        }
        for tile in tiles where tilePlayers[tile.seat] == nil {
            let participant = seats[tile.seat].participant
            let id = trace.nextPlayerID()
            trace.record(.play, t: t, story: storyID, player: id, participant: participant.id, media: TraceEvent.tileMedia)
            let item = StoryItem(source: participant.source, duration: nil, isLive: participant.isLive)
            // Decoded at the tile's size and cropped to its shape by the converter, so a grid of
            // nine costs nine small pictures, pasted as they are.
            let player = ItemPlayer(id: id, itemIndex: 0, item: item, storyID: storyID, startedAt: t,
                                    joinsAt: participant.isLive ? 0 : max(0, lastLocal), size: tile.rect.size, fitsWhole: false,
                                    limits: limits, clock: clock, waits: waits, deferred: defersVideo, participant: participant.id, trace: trace)
            tilePlayers[tile.seat] = (player, tile.rect.width, tile.rect.height)
        }
    }

    func stopTile(_ seat: Int, at t: Double) {
        guard let playing = tilePlayers.removeValue(forKey: seat) else { return }
        playing.player.close()
        trace.record(.stop, t: t, story: storyID, player: playing.player.id, pictures: playing.player.pictures,
                     participant: seats[seat].participant.id, media: TraceEvent.tileMedia)
    }

    func stopTiles(at t: Double) {
        for seat in tilePlayers.keys.sorted() { stopTile(seat, at: t) }
        shownTiles = []
    }

    // MARK: - Tracing the decisions

    func traceLayout(at t: Double, tiles: [String], moved: [String] = [], why: String) {
        let arrangement = shownArrangement ?? .spotlight
        let page = arrangement == .grid ? self.page + 1 : nil
        trace.record(.layout, t: t, story: storyID, detail: why) { event in
            event.layout = arrangement.rawValue
            event.page = page
            event.tiles = tiles
            event.moved = moved.isEmpty ? nil : moved
        }
    }

    /// Why `seat` is large in a spotlight: the first of Stream's comparators it wins on.
    func largeReason(_ seat: Int) -> String {
        let id = seats[seat].participant.id
        if seats[seat].pinned { return "\(id) is pinned" }
        if seats[seat].participant.screenshare { return "\(id) is a screen share" }
        if seats[seat].participant.screensharing { return "\(id) shares a screen" }
        if speaker.dominant == id { return "\(id) is the dominant speaker" }
        return "\(id) ranks first"
    }

    // MARK: - Drawing

    /// A tile's entry: its player's latest picture, else its avatar (`avatarContent`, made once
    /// for the tile's size).
    func tileEntry(_ seat: Int, rect: TileRect, at t: Double) -> RoomPicture.TileEntry {
        let content: RoomPicture.TileEntry.Content
        if let playing = tilePlayers[seat], let picture = playing.player.picture(at: t) {
            content = .picture(picture)
        } else {
            content = .content(avatarContent(seat, width: Double(rect.width), height: Double(rect.height)))
        }
        let id = seats[seat].participant.id
        return RoomPicture.TileEntry(rect: rect, content: content, speaking: speaker.dominant == id && !seats[seat].gone)
    }

    /// The grid's page, drawn into the canvas kept for it (the frame handed out is that canvas,
    /// and what a change of arrangement fades from).
    func gridFrame(at t: Double) -> RGBAImage {
        let entries = shownTiles.map { tileEntry($0.seat, rect: $0.rect, at: t) }
        let pages = seating?.pageCount ?? 1
        var canvas = gridCanvas ?? RGBAImage(width: layout.width, height: layout.height, fill: RoomPicture.background)
        gridCanvas = nil
        RoomPicture.drawGrid(entries, dots: pages > 1 ? (pages, page) : nil, layout: layout, into: &canvas)
        gridCanvas = canvas
        return canvas
    }

    /// The stage's tiles drawn into the large area, the others in the strip.
    func stageFrame(at t: Double) -> RGBAImage {
        let area = layout.large
        // At least a pixel: a canvas far wider than tall leaves the large area no height.
        var large = stageCanvas ?? RGBAImage(width: max(1, Int(area.width)), height: max(1, Int(area.height)), fill: RoomPicture.background)
        stageCanvas = nil
        large.fill(RoomPicture.background)
        defer { stageCanvas = large }
        let entries = shownTiles.map { tile -> RoomPicture.TileEntry in
            var entry = tileEntry(tile.seat, rect: tile.rect, at: t)
            entry.rect.x -= Int(area.x)
            entry.rect.y -= Int(area.y)
            return entry
        }
        RoomPicture.drawTiles(entries, on: &large, layout: layout)
        let onStage = Set(shownTiles.map(\.seat))
        stageVersion += 1
        // A key of its own every frame: the stage's tiles are new pictures each frame.
        return painter.render(large: .content(large), key: RoomPainter.LargeKey(source: Int.min, version: stageVersion),
                              strip: stripEntries(order.filter { !onStage.contains($0) }))
    }

    /// The picture-in-picture camera over a presentation's frame.
    func drawTiles(on frame: inout RGBAImage, at t: Double) {
        let entries = shownTiles.map { tileEntry($0.seat, rect: $0.rect, at: t) }
        RoomPicture.drawTiles(entries.map { var entry = $0; entry.speaking = false; return entry }, on: &frame, layout: layout)
    }

    /// The strip's entries for these seats, in this order.
    func stripEntries(_ indexes: [Int]) -> [RoomPicture.StripEntry] {
        indexes.map { index in
            let seat = seats[index]
            let level = speaker.levels[seat.participant.id] ?? -.infinity
            return RoomPicture.StripEntry(avatar: seat.avatar,
                                          speakingLevel: speaker.isSpeaking(seat.participant.id) ? min(1, max(0, (level + 50) / 50)) : nil,
                                          muted: !seat.hasSound, failed: seat.failed)
        }
    }
}
