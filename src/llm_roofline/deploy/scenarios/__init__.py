"""The scenario CSV contract: rows read and checked, predicted by column, written."""
