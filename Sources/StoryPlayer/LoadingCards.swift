import Compositor

/// What each story item shows while its first frame is pending: its poster, heavily blurred and
/// slightly darkened, with a spinner over it (Periscope). Posters are images, not players: they
/// are prepared once, before playback, and are not subject to create-on-play.
///
/// The poster is the item's `poster`, else the story's, else (for a local, recorded item) the
/// item's own first frame. A live item with none shows the background. Blurred pictures carry no
/// detail, so they are kept at a quarter of the canvas size and scaled up when drawn.
struct LoadingCards {
    private var cards: [[RGBAImage?]]
    let canvas: Canvas
    let look: LoadingLook
    private(set) var warnings: [String] = []

    static let reduction = 4
    static let darkening = 0.72

    init(storyboard: Storyboard, limits: DecodeLimits) {
        canvas = storyboard.canvas
        look = storyboard.loading
        let small = (max(2, canvas.width / LoadingCards.reduction), max(2, canvas.height / LoadingCards.reduction))
        let radius = Int((look.blur * Double(canvas.width) / 720 / Double(LoadingCards.reduction)).rounded())
        var cache: [String: RGBAImage] = [:]
        var warnings: [String] = []
        cards = storyboard.stories.map { story in
            story.items.map { item -> RGBAImage? in
                let source: MediaSource
                if let poster = item.poster ?? story.poster {
                    source = poster
                } else if !item.isLive && !item.source.isRemote {
                    source = item.source
                } else {
                    return nil
                }
                if let cached = cache[source.location] { return cached }
                do {
                    var picture = try PictureLoader.load(source, width: small.0, height: small.1, limits: limits)
                        .blurred(radius: radius)
                    picture.darken(by: LoadingCards.darkening)
                    cache[source.location] = picture
                    return picture
                } catch {
                    warnings.append("story \(story.id): poster not loaded: \(error)")
                    return nil
                }
            }
        }
        self.warnings = warnings
    }

    /// The loading picture of an item at full canvas size, with the spinner when `spinner` is set.
    func picture(story: Int, item: Int, at t: Double, spinner: Bool) -> RGBAImage {
        var picture = cards[story][item]?.scaled(width: canvas.width, height: canvas.height)
            ?? RGBAImage(width: canvas.width, height: canvas.height, fill: canvas.background)
        if spinner { LoadingCards.drawSpinner(on: &picture, at: t) }
        return picture
    }

    /// A ring arc turning once a second, centred, sized from a 720-wide reference.
    static func drawSpinner(on picture: inout RGBAImage, at t: Double) {
        let scale = Double(picture.width) / 720
        let cx = Double(picture.width) / 2, cy = Double(picture.height) / 2
        let turn = (t - t.rounded(.down)) * 2 * Double.pi
        picture.drawArc(cx: cx, cy: cy, radius: 30 * scale, thickness: 6 * scale, start: 0, end: 2 * Double.pi,
                        color: RGBAColor(red: 255, green: 255, blue: 255, alpha: 60))
        picture.drawArc(cx: cx, cy: cy, radius: 30 * scale, thickness: 6 * scale, start: turn, end: turn + 1.6 * Double.pi,
                        color: RGBAColor(red: 255, green: 255, blue: 255, alpha: 235))
    }
}
