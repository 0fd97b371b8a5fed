import Compositor

// MARK: - `layers` on an item or a story

extension Storyboard {
    /// The `layers` array of an item or a story; a layer that cannot be read is noted and left out.
    static func layers(_ reader: inout ObjectReader, resolve: (String) -> MediaSource) -> [StoryLayer] {
        guard let values = reader.array("layers") else { return [] }
        let path = reader.path("layers"), problems = reader.problems
        return values.enumerated().compactMap { index, value in
            problems.attempt { () throws(StoryboardError) in
                var block = try ObjectReader(value, path: "\(path)[\(index)]", problems: problems)
                return try layer(&block, resolve: resolve)
            }
        }
    }

    /// Sizes, positions and times a layer may take: a position may be off the canvas (a layer
    /// sliding in), a scale up to 20 times, a time within a day.
    static let layerPositions = -2.0...3.0, layerScales = 0.0...20, layerTimes = 0.0...86_400

    private static func layer(_ block: inout ObjectReader, resolve: (String) -> MediaSource) throws(StoryboardError) -> StoryLayer {
        let text = block.string("text"), image = block.string("image")
        guard (text == nil) != (image == nil) else {
            throw StoryboardError(path: block.path(text == nil ? "text" : "image"),
                                  message: text == nil ? "a layer needs \"text\" or \"image\"" : "a layer has \"text\" or \"image\", not both")
        }
        var layer: StoryLayer
        if let text {
            layer = StoryLayer(content: .text(textStyle(text, &block, resolve: resolve)))
        } else {
            let file = image!
            guard !file.isEmpty else { throw StoryboardError(path: block.path("image"), message: "must not be empty") }
            let source = resolve(file)
            if let refusal = source.refusal { throw StoryboardError(path: block.path("image"), message: refusal) }
            layer = StoryLayer(content: .sticker(source, width: block.number("width", in: 0.01...2) ?? 0.3))
        }
        layer.pose = pose(&block, over: LayerPose())
        layer.from = block.number("from", in: layerTimes)
        layer.to = block.number("to", in: layerTimes)
        if let from = layer.from, let to = layer.to, to <= from {
            block.problems.record(StoryboardError(path: block.path("to"), message: "must come after \"from\""))
            layer.to = nil
        }
        layer.keyframes = keyframes(&block)
        block.rejectUnknownKeys()
        return layer
    }

    private static func textStyle(_ text: String, _ block: inout ObjectReader, resolve: (String) -> MediaSource) -> StoryLayer.TextStyle {
        var style = StoryLayer.TextStyle(text: text)
        let fontPath = block.path("font")
        if let font = block.string("font"), !font.isEmpty {
            // A name with a slash or a font file's extension is a file; anything else a family.
            let isFile = font.contains("/") || ["ttf", "otf", "ttc"].contains(MediaSource.pathExtension(of: font))
            let file = resolve(font)
            if isFile, let refusal = file.refusal {
                block.problems.record(StoryboardError(path: fontPath, message: refusal))
            } else if isFile, file.isRemote {
                block.problems.record(StoryboardError(path: fontPath, message: "must be a local font file or a family name, not a URL"))
            } else {
                style.font = isFile ? file.location : font
                style.fontIsFile = isFile
            }
        }
        style.size = block.number("size", in: 4...1024) ?? style.size
        style.bold = block.bool("bold") ?? style.bold
        style.color = block.colour("color") ?? style.color
        if var stroke = block.object("stroke") {
            style.strokeWidth = stroke.number("width", in: 0...64) ?? 2
            style.strokeColor = stroke.colour("color") ?? style.strokeColor
            stroke.rejectUnknownKeys()
        }
        style.background = block.colour("background")
        style.alignment = block.choice("align", of: StoryLayer.TextAlignment.self) ?? style.alignment
        style.wrapWidth = block.number("width", in: 0.05...1) ?? style.wrapWidth
        return style
    }

    /// `x`, `y`, `rotation`, `scale`, `opacity` over `base`.
    private static func pose(_ block: inout ObjectReader, over base: LayerPose) -> LayerPose {
        var pose = base
        pose.x = block.number("x", in: layerPositions) ?? pose.x
        pose.y = block.number("y", in: layerPositions) ?? pose.y
        pose.rotation = block.number("rotation", in: -3600...3600) ?? pose.rotation
        pose.scale = block.number("scale", in: layerScales) ?? pose.scale
        pose.opacity = block.number("opacity", in: 0...1) ?? pose.opacity
        return pose
    }

    /// `keyframes`: each with `t` (seconds) and the values it moves, in time order.
    private static func keyframes(_ block: inout ObjectReader) -> [LayerKeyframe] {
        guard let values = block.array("keyframes") else { return [] }
        let path = block.path("keyframes"), problems = block.problems
        var frames: [LayerKeyframe] = []
        for (index, value) in values.enumerated() {
            let read = problems.attempt { () throws(StoryboardError) -> LayerKeyframe in
                var reader = try ObjectReader(value, path: "\(path)[\(index)]", problems: problems)
                // Every key read before `t` is asked for, so a missing `t` is not taken for a typo of `x`.
                var frame = LayerKeyframe(time: reader.number("t", in: layerTimes) ?? .nan)
                frame.x = reader.number("x", in: layerPositions)
                frame.y = reader.number("y", in: layerPositions)
                frame.rotation = reader.number("rotation", in: -3600...3600)
                frame.scale = reader.number("scale", in: layerScales)
                frame.opacity = reader.number("opacity", in: 0...1)
                frame.easing = reader.choice("easing", of: LayerEasing.self) ?? .linear
                reader.rejectUnknownKeys()
                guard !frame.time.isNaN else { throw reader.missing("t") }
                if let previous = frames.last, frame.time <= previous.time {
                    throw StoryboardError(path: reader.path("t"), message: "\(ObjectReader.format(frame.time)) must come after the keyframe before (\(ObjectReader.format(previous.time)))")
                }
                return frame
            }
            if let read { frames.append(read) }
        }
        return frames
    }
}

// MARK: - The files layers name

extension Storyboard {
    /// The local files the stories' layers read: stickers and font files (what the studio
    /// watches, so saving one draws the frame again).
    public var layerFiles: [String] {
        let layers = stories.flatMap { $0.layers + $0.items.flatMap(\.layers) }
        return layers.compactMap { layer in
            switch layer.content {
            case .text(let style): style.fontIsFile ? style.font : nil
            case .sticker(let source, _): source.isRemote || source.refusal != nil ? nil : source.location
            }
        }
    }
}

// MARK: - Text sizes with the canvas

extension Storyboard {
    /// Multiplies every text layer's size and stroke (pixels of the canvas) by `factor`.
    mutating func scaleLayerText(by factor: Double) {
        guard factor != 1, factor.isFinite, factor > 0 else { return }
        func scaled(_ layers: [StoryLayer]) -> [StoryLayer] {
            layers.map { layer in
                guard case .text(var style) = layer.content else { return layer }
                style.size *= factor
                style.strokeWidth *= factor
                var copy = layer
                copy.content = .text(style)
                return copy
            }
        }
        for s in stories.indices {
            stories[s].layers = scaled(stories[s].layers)
            for i in stories[s].items.indices { stories[s].items[i].layers = scaled(stories[s].items[i].layers) }
        }
    }
}
