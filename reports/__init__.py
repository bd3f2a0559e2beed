"""Report generation (plots and tables) from run output."""
