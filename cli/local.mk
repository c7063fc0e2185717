# cli/
