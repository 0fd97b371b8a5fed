import Compositor
import Foundation
import StoryMedia
import StoryModel
import StoryPlayback

// MARK: - Drawing a frame

extension StoryRenderer {
    /// The faces of the frame at `t` drawn into `canvas`: a story at rest, or two mid-turn, each
    /// with its overlay, then the bubble transform while the viewer opens or closes.
    /// Returns the faces as placed (none once the viewer has closed), for the frame's record.
    @discardableResult
    func compose(at t: Double, into canvas: inout RGBAImage) -> [FacePlacement] {
        if navigator.isClosed {
            // The viewer has closed (a render with a `duration` goes on past a `dismiss`): what
            // is left on screen is the app behind it.
            if storyboard.backdrop != nil {
                canvas = clock.measure(.blur) { backdropPicture(openness: 0) }
            } else {
                canvas.fill(storyboard.canvas.background)
            }
            return []
        }
        let geometry = navigator.geometry
        let placements = geometry.faces(pageOffset: navigator.pageOffset, width: canvas.width, height: canvas.height)
        var faces = placements.map { TexturedFace(texture: texture(forStory: $0.page, at: t), placement: $0) }
        defer { giveBackLentPictures(&faces) }
        if options.overlayOnly { leaveOnlyWhatLiesOver(&faces) }
        if faces.count == 1, faces[0].isPixelExact(width: canvas.width, height: canvas.height) {
            // A story at rest is the frame itself (the rasterizer copies its picture into the
            // reused canvas), so the overlay goes on the canvas, not on a copy of the picture.
            rasterizer.draw(faces, background: storyboard.canvas.background, into: &canvas, clock: clock)
            if let shown = captionedItem(story: placements[0].page), layersShow(on: shown) {
                clock.measure(.overlay) { drawLayers(on: &canvas, for: shown) }
            }
            if options.overlay, navigator.overlayOpacity(at: t) > 0 {
                clock.measure(.overlay) { drawOverlay(on: &canvas, story: placements[0].page, at: t) }
            }
            if let shown = captionedItem(story: placements[0].page), captions.shows(shown) {
                clock.measure(.overlay) { captions.draw(on: &canvas, for: shown) }
            }
            // The copies kept for turns wait for the next one; at rest they are just memory.
            overlayCopies.removeAll()
        } else {
            for slot in faces.indices { decorate(&faces[slot].texture, story: faces[slot].placement.page, at: t, slot: slot) }
            rasterizer.draw(faces, background: storyboard.canvas.background, into: &canvas, clock: clock)
        }
        if let bubble = navigator.bubbleTransform(at: t, width: canvas.width, height: canvas.height) {
            if storyboard.backdrop != nil {
                let behind = clock.measure(.blur) { backdropPicture(openness: navigator.openness(at: t)) }
                canvas = clock.measure(.overlay) { canvas.presented(bubble, over: behind) }
            } else {
                canvas = clock.measure(.overlay) { canvas.presented(bubble, background: storyboard.canvas.background) }
            }
        }
        return placements
    }

    /// The frame as the outputs without alpha show it (the MP4, the contact sheet, and without
    /// `--alpha` the PNGs): over black, as a phone shows a transparent photo. Only a background
    /// that is not opaque leaves anything to flatten; without `--alpha` the canvas itself is
    /// flattened, so that its RGB files never show colours whose alpha was 0.
    func flattenedForOpaqueOutputs(_ canvas: inout RGBAImage) -> RGBAImage {
        guard !storyboard.canvas.background.isOpaque else { return canvas }
        guard options.png.keepAlpha else {
            canvas.flattenAlpha()
            return canvas
        }
        guard !options.clips.isEmpty || options.contactSheet != nil else { return canvas }
        var flat = canvas
        flat.flattenAlpha()
        return flat
    }

    /// The storyboard's backdrop as much blurred and dimmed as the viewer is open. Its picture
    /// is loaded on first use; one that cannot be loaded leaves the canvas background, with a
    /// notice.
    func backdropPicture(openness: Double) -> RGBAImage {
        if backdrop == nil, storyboard.backdrop != nil {
            let made = Self.backdropBlur(storyboard, limits: limits)
            backdrop = made.blur
            if let warning = made.warning { warnings.append(warning) }
        }
        return backdrop?.picture(openness: openness)
            ?? RGBAImage(width: storyboard.canvas.width, height: storyboard.canvas.height, fill: storyboard.canvas.background)
    }

    /// The storyboard's backdrop, ready to blur (nil without one), and why its picture could
    /// not be loaded when it could not (the canvas background stands in).
    static func backdropBlur(_ storyboard: Storyboard, limits: DecodeLimits) -> (blur: BackdropBlur?, warning: String?) {
        guard let look = storyboard.backdrop else { return (nil, nil) }
        let width = storyboard.canvas.width, height = storyboard.canvas.height
        var plain = RGBAImage(width: width, height: height, fill: storyboard.canvas.background)
        var warning: String?
        if let source = look.picture {
            do {
                plain = try PictureLoader.load(source, width: width, height: height, limits: limits)
            } catch {
                warning = "backdrop picture \(source): \(error)"
            }
        }
        return (BackdropBlur(plain: plain, fullRadius: look.blur * Double(width) / 720, dim: look.dim), warning)
    }

    /// The story's overlay drawn into its face's texture: the progress segments (which so turn
    /// with the cube), faded out while a finger holds the story, and its caption, if one shows.
    ///
    /// A picture its player lent (`texture(forStory:at:)`) is drawn on in place when only the
    /// segments go on it: only the rows they cover are kept, to put back once the frame is drawn.
    /// Any other texture (a poster, a crossfade, an error card, a room), or one with a caption
    /// (which may cover any rows), is copied first, into the copy made for the face's `slot` on
    /// the last frame (the frame's faces are gone by then, so the copy is again this render's alone).
    func decorate(_ texture: inout RGBAImage, story index: Int, at t: Double, slot: Int) {
        let overlay = options.overlay && navigator.overlayOpacity(at: t) > 0
        let shown = captionedItem(story: index)
        let caption = shown.flatMap { captions.shows($0) ? $0 : nil }
        let layered = shown.flatMap { layersShow(on: $0) ? $0 : nil }
        guard overlay || caption != nil || layered != nil else { return }
        clock.measure(.overlay) {
            if caption == nil, layered == nil, lentPictures[index] != nil, slot < overlayBands.count {
                let rows = StoryOverlay.segmentRows(width: texture.width, height: texture.height,
                                                    inset: storyboard.overlayInset)
                texture.copyTopRows(rows, into: &overlayBands[slot])
                lentPictures[index]?.keptRows = true
                drawOverlay(on: &texture, story: index, at: t)
                return
            }
            var copy = texture
            if let kept = overlayCopies.take(width: texture.width, height: texture.height) {
                copy = kept
                copy.copyPixels(from: texture)
            }
            if let layered { drawLayers(on: &copy, for: layered) }
            if overlay { drawOverlay(on: &copy, story: index, at: t) }
            if let caption { captions.draw(on: &copy, for: caption) }
            overlayCopies.put(copy)
            // A lent picture goes back to its player as it was: the face shows the copy, and the
            // player's picture (shown again next frame, a photo's for its whole item) never
            // keeps a caption past its cue.
            if let lent = lentPictures.removeValue(forKey: index) { lent.player.giveBack(texture) }
            texture = copy
        }
    }

    /// A player's picture lent for the frame, and whether the overlay was drawn on it (its top
    /// rows as they were are then in `overlayBands`, at its face's slot).
    struct LentPicture {
        let player: ItemPlayer
        var keptRows = false
    }

    /// Puts back the rows the overlay covered on each lent picture, and returns it to its player
    /// before anything asks the player for its next picture.
    func giveBackLentPictures(_ faces: inout [TexturedFace]) {
        for slot in faces.indices {
            let story = faces[slot].placement.page
            guard let lent = lentPictures.removeValue(forKey: story) else { continue }
            if lent.keptRows { faces[slot].texture.restoreTopRows(overlayBands[slot]) }
            lent.player.giveBack(faces[slot].texture)
        }
        precondition(lentPictures.isEmpty, "a lent picture not on any face")
    }

    /// The frame plan's item on screen for story `index`, when it may show a caption: not when
    /// its play failed (its error card says why; a caption over it would read as the story).
    func captionedItem(story index: Int) -> FramePlan.ShownItem? {
        guard players.indices.contains(index), players[index].current?.isFailed != true else { return nil }
        return framePlan?.shown.first { $0.story == index }
    }

    /// Whether a text or sticker layer shows on this item at its frame's time.
    func layersShow(on shown: FramePlan.ShownItem) -> Bool {
        stories.indices.contains(shown.story)
            && layers.shows(stories[shown.story], index: shown.story, item: shown.item, mediaTime: shown.mediaTime, storyTime: shown.storyTime)
    }

    /// The text and sticker layers showing on this item, under the bar and the captions.
    func drawLayers(on picture: inout RGBAImage, for shown: FramePlan.ShownItem) {
        layers.draw(on: &picture, story: stories[shown.story], index: shown.story, item: shown.item, mediaTime: shown.mediaTime,
                    storyTime: shown.storyTime)
    }

    func drawOverlay(on picture: inout RGBAImage, story index: Int, at t: Double) {
        StoryOverlay.drawSegments(on: &picture, count: stories[index].items.count, current: navigator.currentItems[index],
                                  progress: barProgress(story: index, at: t), inset: storyboard.overlayInset,
                                  opacity: navigator.overlayOpacity(at: t))
    }

    /// How far story `index`'s progress bar is filled at `t`, 0…1. The bar of an item still
    /// loading its first picture does not move (sound playing counts as shown): it starts with
    /// what the viewer sees, and fills the time left from there.
    func barProgress(story index: Int, at t: Double) -> Double {
        let item = navigator.currentItems[index]
        return players[index].current.map { player in
            player.itemIndex == item && (player.state != .loading || player.playsSoundOnly) ? player.barProgress(at: t) : 0
        } ?? 0
    }

    /// A playing story shows its video (after a short crossfade from its loading picture if the
    /// first frame took time to come); a failed one its error card; a loading one its blurred
    /// poster with a spinner; one that is not playing (start: settle) its blurred poster.
    func texture(forStory index: Int, at t: Double) -> RGBAImage {
        let item = navigator.currentItems[index]
        guard let player = players[index].current else {
            return posters.picture(story: index, item: item, at: t, ring: false)
        }
        if player.isFailed { return errorCard(for: player, story: index, at: t) }
        let picture = player.picture(at: t)
        if player.isFailed { return errorCard(for: player, story: index, at: t) }
        // Sound without a picture is playing, not loading: the poster stays, the ring goes.
        let ring = options.overlay && !player.playsSoundOnly
        let loading = { self.posters.picture(story: index, item: player.itemIndex, at: t, ring: ring) }
        guard let picture else { return loading() }
        let fade = storyboard.loading.fade
        if let shownAt = player.firstFrameAt, shownAt > player.startedAt, fade > 0, t - shownAt < fade {
            return loading().crossfaded(to: picture, amount: (t - shownAt) / fade)
        }
        // Lent for this frame, so that the overlay can be drawn on it without a copy (`decorate`).
        guard let lent = player.lendPicture() else { return picture }
        lentPictures[index] = LentPicture(player: player)
        return lent
    }

    /// What the failed play shows: its story's id and the reason with its cause ("cannot open
    /// …: Connection refused"), over the story's blurred poster when it has one.
    func errorCard(for player: ItemPlayer, story index: Int, at t: Double) -> RGBAImage {
        if let card = errorCards[player.id] { return card }
        guard case .failed(let error) = player.state else { preconditionFailure("a card for a play that did not fail") }
        let backdrop = posters.card(story: index, item: player.itemIndex)
        let card = clock.measure(.overlay) {
            ErrorCardPicture.render(width: storyboard.canvas.width, height: storyboard.canvas.height, backdrop: backdrop,
                                    title: stories[index].id, reason: "\(error)")
        }
        errorCards[player.id] = card
        return card
    }
}
