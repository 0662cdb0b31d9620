"""Four Factions (FF-1..FF-29). Importing this package registers the variant."""
