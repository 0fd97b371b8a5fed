// The StoryPlayer product: every layer of the player, so `import StoryPlayer` gives a package
// that depends on live-stories the whole public interface, as it did before the layers.
@_exported import StoryBase
@_exported import StoryModel
@_exported import StoryMedia
@_exported import StoryLive
@_exported import StoryTrace
@_exported import StoryPlayback
@_exported import StoryEncode
@_exported import StoryRender
