import Compositor
import Foundation

// MARK: - Drawing a frame

extension StoryRender {
    /// The faces of the frame at `t` drawn into `canvas`: a story at rest, or two mid-turn, each
    /// with its overlay, then the bubble transform while the viewer opens or closes.
    func compose(at t: Double, into canvas: inout RGBAImage) {
        let geometry = navigator.geometry
        let placements = geometry.faces(pageOffset: navigator.pageOffset, width: canvas.width, height: canvas.height)
        let undecorated = placements.map { TexturedFace(texture: texture(forStory: $0.page, at: t), placement: $0) }
        if undecorated.count == 1, undecorated[0].isPixelExact(width: canvas.width, height: canvas.height) {
            // A story at rest is the frame itself (the rasterizer copies its picture into the
            // reused canvas), so the overlay goes on the canvas, not on a copy of the picture.
            rasterizer.draw(undecorated, background: storyboard.canvas.background, into: &canvas, clock: clock)
            if options.overlay, navigator.overlayOpacity(at: t) > 0 {
                clock.measure(.overlay) { drawOverlay(on: &canvas, story: placements[0].page, at: t) }
            }
            // The copies kept for turns wait for the next one; at rest they are just memory.
            overlayCopies = [nil, nil]
        } else {
            let faces = undecorated.enumerated().map { slot, face in
                TexturedFace(texture: decorated(face.texture, story: face.placement.page, at: t, slot: slot),
                             placement: face.placement)
            }
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
        guard options.clip != nil || options.contactSheet != nil else { return canvas }
        var flat = canvas
        flat.flattenAlpha()
        return flat
    }

    /// The storyboard's backdrop as much blurred and dimmed as the viewer is open. Its picture
    /// is loaded on first use; one that cannot be loaded leaves the canvas background, with a
    /// notice.
    func backdropPicture(openness: Double) -> RGBAImage {
        if backdrop == nil, let look = storyboard.backdrop {
            let width = storyboard.canvas.width, height = storyboard.canvas.height
            var plain = RGBAImage(width: width, height: height, fill: storyboard.canvas.background)
            if let source = look.picture {
                do {
                    plain = try PictureLoader.load(source, width: width, height: height, limits: limits)
                } catch {
                    warnings.append("backdrop picture \(source): \(error)")
                }
            }
            backdrop = BackdropBlur(plain: plain, fullRadius: look.blur * Double(width) / 720, dim: look.dim)
        }
        return backdrop?.picture(openness: openness)
            ?? RGBAImage(width: storyboard.canvas.width, height: storyboard.canvas.height, fill: storyboard.canvas.background)
    }

    /// The story's overlay drawn into its texture: the progress segments (which so turn with the
    /// cube), faded out while a finger holds the story.
    /// `slot` is the face's place in the frame; the copy made for it is kept for the next frame
    /// (the frame's faces are gone by then, so the copy is again this render's alone).
    func decorated(_ picture: RGBAImage, story index: Int, at t: Double, slot: Int) -> RGBAImage {
        guard options.overlay, navigator.overlayOpacity(at: t) > 0 else { return picture }
        return clock.measure(.overlay) {
            var copy = picture
            if slot < overlayCopies.count, let kept = overlayCopies[slot], kept.width == picture.width,
               kept.height == picture.height {
                overlayCopies[slot] = nil
                copy = kept
                copy.copyPixels(from: picture)
            }
            drawOverlay(on: &copy, story: index, at: t)
            if slot < overlayCopies.count { overlayCopies[slot] = copy }
            return copy
        }
    }

    func drawOverlay(on picture: inout RGBAImage, story index: Int, at t: Double) {
        let item = navigator.currentItems[index]
        // The bar of an item still loading its first picture does not move (sound playing counts
        // as shown): it starts with what the viewer sees.
        let progress = players[index].current.map { player in
            player.itemIndex == item && (player.state != .loading || player.playsSoundOnly) ? player.progress(at: t) : 0
        } ?? 0
        StoryOverlay.drawSegments(on: &picture, count: stories[index].items.count, current: item, progress: progress,
                                  inset: storyboard.overlayInset, opacity: navigator.overlayOpacity(at: t))
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
        return picture
    }

    /// What the failed play shows: its story's id and the reason, over the story's blurred
    /// poster when it has one.
    func errorCard(for player: ItemPlayer, story index: Int, at t: Double) -> RGBAImage {
        if let card = errorCards[player.id] { return card }
        guard case .failed(let error) = player.state else { preconditionFailure("a card for a play that did not fail") }
        let backdrop = posters.card(story: index, item: player.itemIndex)
        let card = clock.measure(.overlay) {
            ErrorCardPicture.render(width: storyboard.canvas.width, height: storyboard.canvas.height, backdrop: backdrop,
                                    title: stories[index].id, reason: error.message)
        }
        errorCards[player.id] = card
        return card
    }
}
