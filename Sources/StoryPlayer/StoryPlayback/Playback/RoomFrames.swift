import Compositor

/// The room's pictures from frame to frame: the painter that draws each over the last, the
/// canvases a grid and a stage are drawn into, the cross-fade from the last frame shown, and
/// each participant's avatar content, made once per size.
struct RoomFrames {
    static let crossfade = 0.25

    /// A participant's avatar content and what it was made from.
    private struct Avatar {
        let failed: Bool
        let hasAvatar: Bool
        let width: Double
        let height: Double
        let picture: RGBAImage
    }

    private let layout: RoomLayout
    /// Draws each frame over the last, only what changed (the large area when its picture is
    /// new, the strip's slots whose tile changed).
    private var painter: RoomPainter
    /// The last frame when it was a cross-fade's (else the painter's last picture is the last
    /// frame): what a switch of the large participant fades from.
    private var lastFaded: RGBAImage?
    private var fade: (from: RGBAImage, start: Double)?
    /// A presentation's last frame (a grid's is `gridCanvas`, the others' the painter's), to
    /// fade from.
    private var lastOwnFrame: RGBAImage?
    /// The canvas a grid is drawn into, kept from frame to frame (a new one a frame cost page
    /// faults), and the stage's large area likewise.
    private var gridCanvas: RGBAImage?
    private var stageCanvas: RGBAImage?
    private var stageVersion = 0
    /// The content shown while a participant has no video, large or in a tile, by seat (made
    /// on first use, and again when it fails, its avatar arrives, or it is shown at another
    /// size: on the realtime clock a participant can be large before its thread has loaded the
    /// avatar).
    private var avatars: [Int: Avatar] = [:]

    init(layout: RoomLayout) {
        self.layout = layout
        painter = RoomPainter(layout: layout)
    }

    /// The last frame as shown (`grid`: the grid was shown), what a change fades from.
    func lastShown(grid: Bool) -> RGBAImage? {
        lastFaded ?? lastOwnFrame ?? (grid ? gridCanvas : painter.lastPicture)
    }

    /// The next frames cross-fade from the last one shown, if one was.
    mutating func fadeFromLastShown(grid: Bool, at t: Double) {
        if let last = lastShown(grid: grid) { fade = (last, t) }
    }

    /// A participant's avatar over its blurred avatar, `width`×`height` (the large area, or a
    /// tile), made once (again if it fails later, or at another size).
    mutating func avatarContent(_ index: Int, of seat: RoomSeats.Seat, width: Double, height: Double) -> RGBAImage {
        if let made = avatars[index], made.failed == seat.failed, made.hasAvatar == (seat.avatar != nil),
           made.width == width, made.height == height { return made.picture }
        let picture = RoomPicture.avatarTile(seat.avatar, failed: seat.failed, width: width, height: height,
                                             markRadius: layout.avatarDiameter / 3)
        avatars[index] = Avatar(failed: seat.failed, hasAvatar: seat.avatar != nil, width: width, height: height, picture: picture)
        return picture
    }

    /// The spotlight's picture: the large area and the strip.
    mutating func spotlight(large: RoomPicture.Large, key: RoomPainter.LargeKey?, strip: [RoomPicture.StripEntry]) -> RGBAImage {
        painter.render(large: large, key: key, strip: strip)
    }

    /// The grid's page, drawn into the canvas kept for it (the frame handed out is that canvas,
    /// and what a change of arrangement fades from).
    mutating func grid(_ entries: [RoomPicture.TileEntry], dots: (Int, Int)?) -> RGBAImage {
        var canvas = gridCanvas ?? RGBAImage(width: layout.width, height: layout.height, fill: RoomPicture.background)
        gridCanvas = nil
        RoomPicture.drawGrid(entries, dots: dots, layout: layout, into: &canvas)
        gridCanvas = canvas
        return canvas
    }

    /// The stage's tiles drawn into the large area (`entries` placed on the whole canvas), the
    /// others in the strip.
    mutating func stage(_ entries: [RoomPicture.TileEntry], strip: [RoomPicture.StripEntry]) -> RGBAImage {
        let area = layout.large
        // At least a pixel: a canvas far wider than tall leaves the large area no height.
        var large = stageCanvas ?? RGBAImage(width: max(1, Int(area.width)), height: max(1, Int(area.height)), fill: RoomPicture.background)
        stageCanvas = nil
        large.fill(RoomPicture.background)
        let placed = entries.map { entry -> RoomPicture.TileEntry in
            var entry = entry
            entry.rect.x -= Int(area.x)
            entry.rect.y -= Int(area.y)
            return entry
        }
        RoomPicture.drawTiles(placed, on: &large, layout: layout)
        stageVersion += 1
        // A key of its own every frame: the stage's tiles are new pictures each frame.
        let frame = painter.render(large: .content(large), key: RoomPainter.LargeKey(source: Int.min, version: stageVersion),
                                   strip: strip)
        stageCanvas = large
        return frame
    }

    /// The frame as shown: `frame` cross-faded from the last one while a fade runs. `own`: the
    /// frame is a presentation's, kept to fade from.
    mutating func shown(_ frame: RGBAImage, own: Bool, at t: Double) -> RGBAImage {
        lastOwnFrame = own ? frame : nil
        lastFaded = nil
        guard let fade else { return frame }
        let amount = (t - fade.start) / RoomFrames.crossfade
        guard amount < 1, fade.from.width == frame.width, fade.from.height == frame.height else {
            self.fade = nil
            return frame
        }
        let faded = fade.from.crossfaded(to: frame, amount: max(0, amount))
        lastFaded = faded
        return faded
    }
}
