import Compositor
import StoryBase
import StoryMedia
import StoryModel
import StoryTrace

/// The room's video players: the one of the participant drawn large, and one per tile shown
/// (a grid's page, a stage, a presentation's picture-in-picture camera) at its tile's size.
/// Each is traced as it starts and stops; none is reached but through this type.
struct RoomVideo {
    /// What the large participant's player has to show.
    enum LargeFrame {
        case picture(RGBAImage, RoomPainter.LargeKey)
        /// Its player failed: the participant shows its avatar with the error mark.
        case failed
        /// No picture yet, or no player for it.
        case none
    }

    private var large: (seat: Int, participant: String, player: ItemPlayer)?
    /// The players of the tiles shown, by seat, with the size each decodes at.
    private var tiles: [Int: (participant: String, player: ItemPlayer, width: Int, height: Int)] = [:]
    /// In a shard's fast-forward the room still follows its sound and switches its large
    /// participant, but the video players it starts decode nothing until `activate`.
    private var defers: Bool
    private let storyID: String
    private let trace: LifecycleTrace
    private let limits: DecodeLimits
    private let clock: StageClock?
    private let waits: Bool
    private let interruption: RenderInterruption?

    init(storyID: String, limits: DecodeLimits, clock: StageClock?, waits: Bool, interruption: RenderInterruption?,
         deferred: Bool, trace: LifecycleTrace) {
        self.storyID = storyID
        self.limits = limits
        self.clock = clock
        self.waits = waits
        self.interruption = interruption
        defers = deferred
        self.trace = trace
    }

    /// The seat whose video plays large, if any does.
    var largeSeat: Int? { large?.seat }

    /// Starts decoding where a full render would be showing the pictures, at a shard's first
    /// frame.
    mutating func activate(at t: Double, previousFrame: Double) {
        defers = false
        large?.player.activate(at: t, previousFrame: previousFrame)
        for seat in tiles.keys.sorted() { tiles[seat]?.player.activate(at: t, previousFrame: previousFrame) }
    }

    // MARK: - The large participant

    /// Starts the video player of `seat`, the large participant, at the room's media time
    /// `local`. Decoded at the size it is shown, each picture fitted whole into the large area
    /// by its own shape (one that turns mid-stream too, and a live one whose size the probe
    /// could not tell), so no picture is rescaled per frame and a landscape camera keeps its
    /// sides.
    mutating func startLarge(_ seat: Int, _ participant: RoomParticipant, size: (width: Int, height: Int),
                             local: Double, at t: Double) {
        let player = startPlayer(participant, size: size, fitsWhole: true, media: nil, local: local, at: t)
        large = (seat, participant.id, player)
    }

    mutating func stopLarge(at t: Double) {
        guard let large else { return }
        large.player.close()
        trace.record(.stop, t: t, story: storyID, player: large.player.id, pictures: large.player.pictures,
                     participant: large.participant) { event in
            if let delivered = large.player.media?.deliveredBy, !delivered.isEmpty { event.protocolName = delivered }
            event.jitterBufferMs = large.player.jitterBufferMs
        }
        self.large = nil
    }

    /// The large player's picture at `t` when it plays `seat`.
    func largeFrame(of seat: Int, at t: Double) -> LargeFrame {
        guard let large, large.seat == seat else { return .none }
        if let picture = large.player.picture(at: t) {
            // A new picture from the player is a new version; the same one is not drawn again.
            return .picture(picture, RoomPainter.LargeKey(source: large.player.id, version: large.player.shownVersion))
        }
        return large.player.isFailed ? .failed : .none
    }

    // MARK: - The tiles

    /// Keeps a player for each of `shown` at its tile's size (a new size is a new player) and
    /// stops the others. Each is decoded at the tile's size and cropped to its shape by the
    /// converter, so a grid of nine costs nine small pictures, pasted as they are.
    mutating func play(_ shown: [(seat: Int, rect: TileRect)], of seats: RoomSeats, local: Double, at t: Double) {
        for seat in tiles.keys.sorted() {
            let playing = tiles[seat]!
            if !shown.contains(where: { $0.seat == seat && $0.rect.width == playing.width && $0.rect.height == playing.height }) {
                stopTile(seat, at: t)
            }
        }
        for tile in shown where tiles[tile.seat] == nil {
            let participant = seats[tile.seat].participant
            let player = startPlayer(participant, size: tile.rect.size, fitsWhole: false, media: TraceEvent.tileMedia,
                                     local: local, at: t)
            tiles[tile.seat] = (participant.id, player, tile.rect.width, tile.rect.height)
        }
    }

    mutating func stopTiles(at t: Double) {
        for seat in tiles.keys.sorted() { stopTile(seat, at: t) }
    }

    /// The seats whose tile player failed, in seat order.
    var failedTiles: [Int] { tiles.keys.sorted().filter { tiles[$0]!.player.isFailed } }

    /// The latest picture of `seat`'s tile player, if it plays and has one.
    func tilePicture(_ seat: Int, at t: Double) -> RGBAImage? { tiles[seat]?.player.picture(at: t) }

    private mutating func stopTile(_ seat: Int, at t: Double) {
        guard let playing = tiles.removeValue(forKey: seat) else { return }
        playing.player.close()
        trace.record(.stop, t: t, story: storyID, player: playing.player.id, pictures: playing.player.pictures,
                     participant: playing.participant, media: TraceEvent.tileMedia)
    }

    /// A new player of `participant`, traced as it plays. A recording is shown where the room
    /// is in it (`local`), in step with its sound: before, it started from its first picture
    /// when it became large, as far behind its voice as the room was old.
    private func startPlayer(_ participant: RoomParticipant, size: (width: Int, height: Int), fitsWhole: Bool,
                             media: String?, local: Double, at t: Double) -> ItemPlayer {
        let id = trace.nextPlayerID()
        trace.record(.play, t: t, story: storyID, player: id, participant: participant.id, media: media)
        let item = StoryItem(source: participant.source, duration: nil, isLive: participant.isLive)
        return ItemPlayer(id: id, itemIndex: 0, item: item, storyID: storyID, startedAt: t,
                          joinsAt: participant.isLive ? 0 : max(0, local), size: size, fitsWhole: fitsWhole, limits: limits,
                          clock: clock, waits: waits, interruption: interruption, deferred: defers, participant: participant.id, trace: trace)
    }
}
