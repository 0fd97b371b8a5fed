import Compositor

// MARK: - Layers inside a platform's UI zones (`check-layout`, `--preset`)

extension Storyboard {
    /// A layer where it comes to rest (its last keyframe's pose, or its own): its box as
    /// fractions of the canvas, turned and scaled, cut to the canvas; nil when it is off it.
    /// `size` is the layer's drawn size in pixels at scale 1.
    func restingBox(of layer: StoryLayer, size: (width: Double, height: Double)) -> CaptionLayout.Box? {
        let pose = layer.pose(at: layer.keyframes.last?.time ?? 0)
        // As the layer is drawn (`RGBAImage.draw(_:at:)`), in fractions of the canvas.
        let half = SpritePlacement(centreX: 0, centreY: 0, degrees: pose.rotation, scale: pose.scale)
            .halfExtents(width: size.width, height: size.height)
        let extentX = half.x / Double(canvas.width), extentY = half.y / Double(canvas.height)
        // Cut to the canvas; a layer resting off it (slid out) has no box.
        let left = min(1, max(0, pose.x - extentX)), right = min(1, max(0, pose.x + extentX))
        let top = min(1, max(0, pose.y - extentY)), bottom = min(1, max(0, pose.y + extentY))
        guard left < right, top < bottom else { return nil }
        return (x: left...right, y: top...bottom)
    }

    /// Each layer's warnings against `platform`'s zones, its resting box measured by `size`
    /// (nil: it cannot be drawn, and draws nothing).
    func layerWarnings(for platform: PlatformSafeZones,
                       size: (StoryLayer) -> (width: Double, height: Double)?) -> [LayoutWarning] {
        var placed: [(path: String, layer: StoryLayer)] = []
        for (s, story) in stories.enumerated() {
            placed += story.layers.enumerated().map { ("stories[\(s)].layers[\($0.offset)]", $0.element) }
            for (i, item) in story.items.enumerated() {
                placed += item.layers.enumerated().map { ("stories[\(s)].items[\(i)].layers[\($0.offset)]", $0.element) }
            }
        }
        var warnings: [LayoutWarning] = []
        for (path, layer) in placed {
            guard let measured = size(layer), let box = restingBox(of: layer, size: measured) else { continue }
            let what = if case .text = layer.content { "text layer" } else { "sticker" }
            for zone in platform.zones where zone.overlaps(x: box.x, y: box.y) {
                let extent = "x \(Storyboard.percentRange(box.x)), y \(Storyboard.percentRange(box.y))"
                warnings.append(LayoutWarning(path: path, message: "the \(what) (\(extent)) falls in \(platform.possessive) \(zone.name)"))
            }
        }
        return warnings
    }
}
