// OnTheMapKit re-exports the wire types, so `import OnTheMapKit` is all an app needs.
@_exported import OnTheMapModels
