"""The 23 official vehicle modules, one file each, listed in official order."""

from __future__ import annotations

from vmb_gym.vehicle.modules.hud import HUD
from vmb_gym.vehicle.modules.center_information_display import CenterInformationDisplay
from vmb_gym.vehicle.modules.instrument_panel import InstrumentPanel
from vmb_gym.vehicle.modules.front_trunk import FrontTrunk
from vmb_gym.vehicle.modules.trunk import Trunk
from vmb_gym.vehicle.modules.fuel_port import FuelPort
from vmb_gym.vehicle.modules.rearview_mirror import RearviewMirror
from vmb_gym.vehicle.modules.sunroof import Sunroof
from vmb_gym.vehicle.modules.navigation import Navigation
from vmb_gym.vehicle.modules.seat import Seat
from vmb_gym.vehicle.modules.radio import Radio
from vmb_gym.vehicle.modules.air_conditioner import AirConditioner
from vmb_gym.vehicle.modules.foot_pedal import FootPedal
from vmb_gym.vehicle.modules.bluetooth import Bluetooth
from vmb_gym.vehicle.modules.video import Video
from vmb_gym.vehicle.modules.window import Window
from vmb_gym.vehicle.modules.door import Door
from vmb_gym.vehicle.modules.sunshade import Sunshade
from vmb_gym.vehicle.modules.wiper import Wiper
from vmb_gym.vehicle.modules.music import Music
from vmb_gym.vehicle.modules.overhead_screen import OverheadScreen
from vmb_gym.vehicle.modules.steering_wheel import SteeringWheel
from vmb_gym.vehicle.modules.light import Light

#: The module classes in the official ``VehicleWorld`` order.
MODULE_CLASSES = (
    HUD,
    CenterInformationDisplay,
    InstrumentPanel,
    FrontTrunk,
    Trunk,
    FuelPort,
    RearviewMirror,
    Sunroof,
    Navigation,
    Seat,
    Radio,
    AirConditioner,
    FootPedal,
    Bluetooth,
    Video,
    Window,
    Door,
    Sunshade,
    Wiper,
    Music,
    OverheadScreen,
    SteeringWheel,
    Light,
)

__all__ = [
    "HUD",
    "CenterInformationDisplay",
    "InstrumentPanel",
    "FrontTrunk",
    "Trunk",
    "FuelPort",
    "RearviewMirror",
    "Sunroof",
    "Navigation",
    "Seat",
    "Radio",
    "AirConditioner",
    "FootPedal",
    "Bluetooth",
    "Video",
    "Window",
    "Door",
    "Sunshade",
    "Wiper",
    "Music",
    "OverheadScreen",
    "SteeringWheel",
    "Light",
    "MODULE_CLASSES",
]
